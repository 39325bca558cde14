import { useId, useState } from 'react';
import { type CsvEncoding, CsvEncodingSelect } from '../../../components/ui/csv-encoding-select';
import { FormAlert, Notice } from '../../../components/ui/form-alert';
import { ApiError } from '../../../lib/api';
import { useFormSubmit } from '../../../lib/use-form-submit';

/** The list's search and order: the file holds exactly the members the list finds. */
const FILTERS = ['name', 'email', 'affiliations', 'sort'];

/** The file name the server gave (RFC 6266 `filename*`), else a plain one. */
function fileNameOf(disposition: string | null): string {
  const encoded = /filename\*=UTF-8''([^;]+)/i.exec(disposition ?? '')?.[1];
  if (encoded) {
    try {
      return decodeURIComponent(encoded);
    } catch {
      // fall through
    }
  }
  return /filename="([^"]+)"/i.exec(disposition ?? '')?.[1] ?? 'members.csv';
}

/**
 * 「CSVをダウンロード」 on the administrators' user list: the members of the current search, in its
 * order. Fetched, not navigated to: a refusal (too many downloads, signed out) is shown here instead of
 * replacing the page with its JSON. Each download is recorded in the audit log.
 */
export function MemberCsvDownload({ params, disabled }: { params: URLSearchParams; disabled?: boolean }) {
  const selectId = useId();
  const [encoding, setEncoding] = useState<CsvEncoding>('utf-8');
  const [notice, setNotice] = useState('');
  const { busy, message, run } = useFormSubmit();
  const download = () =>
    run(async () => {
      setNotice('');
      const query = new URLSearchParams();
      for (const key of FILTERS) {
        const value = params.get(key);
        if (value) query.set(key, value);
      }
      query.set('encoding', encoding);
      let res: Response;
      try {
        res = await fetch(`/api/users/export.csv?${query}`, { credentials: 'include', cache: 'no-store' });
      } catch {
        throw new ApiError(0, '通信に失敗しました。ネットワーク接続を確認してから再度お試しください。');
      }
      if (!res.ok) {
        const body = (await res.json().catch(() => undefined)) as { message?: string } | undefined;
        throw new ApiError(res.status, body?.message ?? 'CSVを作成できませんでした。時間をおいて再度お試しください。');
      }
      const url = URL.createObjectURL(await res.blob());
      const link = document.createElement('a');
      link.href = url;
      link.download = fileNameOf(res.headers.get('content-disposition'));
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
      const rows = Number(res.headers.get('x-row-count') ?? Number.NaN);
      setNotice(
        Number.isFinite(rows)
          ? `${rows.toLocaleString('ja-JP')}件の会員をCSVに書き出しました。`
          : '会員のCSVをダウンロードしました。',
      );
    });
  return (
    <div className="member-csv">
      <CsvEncodingSelect id={selectId} value={encoding} onChange={setEncoding} label="CSVの文字コード" inline />
      <button type="button" className="button" disabled={busy || disabled} onClick={() => void download()}>
        {busy ? 'CSVを作成しています…' : 'CSVをダウンロード'}
      </button>
      <p className="small">検索条件に合う会員を、一覧と同じ並び順で書き出します。ダウンロードは操作履歴に記録されます。</p>
      {notice ? <Notice>{notice}</Notice> : null}
      <FormAlert message={message} />
    </div>
  );
}
