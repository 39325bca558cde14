import { useState } from 'react';
import { FormAlert, Notice } from '../../../components/ui/form-alert';
import { useConfirm } from '../../../components/ui/use-confirm';
import { formatDateTime } from '../../../lib/japan-time';
import { useFormSubmit } from '../../../lib/use-form-submit';
import { deletePasskey, type Passkey } from '../api/security';

/** The member's passkeys, each with 「削除」 (asked first): on the security page and the password page. */
export function PasskeyList({ passkeys, onChanged }: { passkeys: Passkey[]; onChanged: () => void }) {
  const [done, setDone] = useState('');
  const { busy, message, run } = useFormSubmit();
  const { confirm, dialog } = useConfirm();

  const remove = async (passkey: Passkey) => {
    const yes = await confirm({
      title: 'パスキーを削除します',
      confirmLabel: '削除する',
      danger: true,
      body: <p>パスキー「{passkey.name}」を削除します。この端末ではパスキーでログインできなくなります。</p>,
    });
    if (!yes) return;
    await run(async () => {
      const res = await deletePasskey(passkey.id);
      setDone(res.message);
      onChanged();
    });
  };

  return (
    <>
      {done ? <Notice>{done}</Notice> : null}
      <FormAlert message={message} />
      {passkeys.length === 0 ? (
        <p>登録済みのパスキーはありません。</p>
      ) : (
        <ul className="passkey-list" aria-label="登録済みのパスキー">
          {passkeys.map((passkey) => (
            <li key={passkey.id}>
              <span>
                {passkey.name}
                {passkey.created_at ? `（${formatDateTime(passkey.created_at)} 登録）` : null}
              </span>
              <button type="button" className="button small" disabled={busy} onClick={() => void remove(passkey)}>
                削除
              </button>
            </li>
          ))}
        </ul>
      )}
      {/* Its (closed) form only where there is something to remove. */}
      {passkeys.length > 0 ? dialog : null}
    </>
  );
}
