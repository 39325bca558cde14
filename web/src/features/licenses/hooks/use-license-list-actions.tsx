import { useEffect, useRef, useState } from 'react';
import { useConfirm } from '../../../components/ui/use-confirm';
import { useFormSubmit } from '../../../lib/use-form-submit';
import { type License, type LicensePage, moveLicense, setPublished } from '../api/licenses';
import { moveButtonId } from '../components/license-table';

/**
 * 上へ・下へ and 公開・非公開 on the licence list. The moved licence keeps the focus (its button moved
 * with its row), or its other button at an end — once the list shows the new order and the buttons
 * are enabled again (a disabled button loses focus).
 */
export function useLicenseListActions({
  data,
  mutate,
  setPage,
}: {
  data: LicensePage | undefined;
  mutate: () => Promise<unknown>;
  setPage: (page: number) => void;
}) {
  const { confirm, dialog } = useConfirm();
  const action = useFormSubmit();
  const [notice, setNotice] = useState('');
  const refocus = useRef<{ id: number; direction: 'up' | 'down' } | null>(null);

  const move = (license: License, direction: 'up' | 'down') => {
    setNotice('');
    void action.run(async () => {
      const { ids } = await moveLicense(license.id, { direction });
      const place = ids.indexOf(license.id) + 1;
      const page = Math.floor((place - 1) / (data?.per_page ?? 20)) + 1;
      setNotice(`「${license.name}」を${place}番目にしました。`);
      if (page !== data?.page) setPage(page);
      await mutate();
      refocus.current = { id: license.id, direction };
    });
  };

  useEffect(() => {
    const pending = refocus.current;
    if (!pending || action.busy || !data) return;
    refocus.current = null;
    const same = document.getElementById(moveButtonId(pending.id, pending.direction)) as HTMLButtonElement | null;
    const other = document.getElementById(moveButtonId(pending.id, pending.direction === 'up' ? 'down' : 'up'));
    (same && !same.disabled ? same : other)?.focus();
  });

  const togglePublished = async (license: License) => {
    const published = !license.published;
    const hide = {
      title: 'ライセンスを非公開にします',
      confirmLabel: '非公開にする',
      body: <p>「{license.name}」を非公開にします。会員の一覧に表示されなくなり、開いている決済ページは無効になります。</p>,
    };
    if (!published && !(await confirm(hide))) return;
    setNotice('');
    void action.run(async () => {
      const { message } = await setPublished(license.id, { published });
      setNotice(message);
      await mutate();
    });
  };

  return { ...action, notice, dialog, move, togglePublished };
}
