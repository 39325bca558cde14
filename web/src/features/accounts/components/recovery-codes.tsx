import { useState } from 'react';
import { site } from '../../../../../src/site-settings';
import { Notice } from '../../../components/ui/form-alert';
import { formatJapanTime } from '../../../lib/japan-time';

/** The codes as a text file and for the clipboard: what they are, then one code a line. */
function codesText(codes: string[]): string {
  const issued = formatJapanTime(new Date().toISOString());
  return [
    `${site.shopName} 二段階認証のリカバリーコード（${issued} 発行）`,
    '認証アプリを使えないとき、確認コードの代わりに1つずつ使えます。各コードは1回だけ使えます。',
    '',
    ...codes,
    '',
  ].join('\r\n');
}

/** Saves the codes as recovery-codes.txt (a download; nothing is sent anywhere). */
function download(codes: string[]) {
  const url = URL.createObjectURL(new Blob([codesText(codes)], { type: 'text/plain;charset=utf-8' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = 'recovery-codes.txt';
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** Prints only the codes (styles.css hides the rest of the page while `printing-recovery-codes` is set). */
function printCodes() {
  document.body.classList.add('printing-recovery-codes');
  const done = () => document.body.classList.remove('printing-recovery-codes');
  window.addEventListener('afterprint', done, { once: true });
  window.print();
  setTimeout(done, 1000);
}

/** Freshly issued recovery codes: shown once, with ways to keep them (copy, save as text, print). */
export function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const [copied, setCopied] = useState('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(codes.join('\n'));
      setCopied('リカバリーコードをコピーしました。パスワード管理ツールなどに貼り付けて保存してください。');
    } catch {
      setCopied('コピーできませんでした。「テキストで保存」か「印刷」をお使いください。');
    }
  };
  return (
    <div className="subsection recovery-codes-sheet">
      <h2>リカバリーコード</h2>
      <Notice>
        認証アプリを使えなくなったときに、確認コードの代わりに使えます。各コードは1回だけ使えます。印刷するか、パスワード管理ツールなど安全な場所に保存してください。この画面を閉じると再表示できません。
      </Notice>
      <ol className="recovery-codes" aria-label="リカバリーコード">
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ol>
      <p className="small">入力するときは、大文字・小文字やハイフン（-）の有無を気にする必要はありません。</p>
      <div className="recovery-codes-actions">
        <button type="button" className="button" onClick={() => void copy()}>
          コピー
        </button>
        <button type="button" className="button" onClick={() => download(codes)}>
          テキストで保存
        </button>
        <button type="button" className="button" onClick={printCodes}>
          印刷
        </button>
      </div>
      {copied ? <p role="status">{copied}</p> : null}
      <button type="button" className="button primary" onClick={onDone}>
        保存しました
      </button>
    </div>
  );
}
