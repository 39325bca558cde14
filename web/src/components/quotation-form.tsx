import { useId, useState } from 'react';
import { ApiError, type FieldErrors, firstMessages, networkError } from '../lib/api';
import { FormAlert, Notice } from './ui/form-alert';
import { TextInput } from './ui/text-input';

const HONORIFICS = ['御中', '様'] as const;

/** GET /api/licenses/{id}/quotation as a download (a PDF, or the 422/429 as an ApiError). */
async function downloadQuotation(licenseId: number, addressee: string, honorific: string): Promise<string> {
  const query = new URLSearchParams({ addressee, honorific });
  let res: Response;
  try {
    res = await fetch(`/api/licenses/${licenseId}/quotation?${query}`, { credentials: 'include', cache: 'no-store' });
  } catch {
    throw networkError();
  }
  if (!res.ok) {
    const body = (await res.json().catch(() => undefined)) as { message?: string; errors?: Record<string, unknown> } | undefined;
    throw new ApiError(res.status, body?.message ?? '見積書を作成できませんでした。', firstMessages(body?.errors));
  }
  const number = res.headers.get('x-quotation-number') ?? '';
  const url = URL.createObjectURL(await res.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = `御見積書_${number}.pdf`;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  return number;
}

/** 「見積書を作成」: a typed 宛名 with 御中 or 様, for a purchase paid from an organisation's budget. */
export function QuotationForm({ licenseId }: { licenseId: number }) {
  const [addressee, setAddressee] = useState('');
  const [honorific, setHonorific] = useState<(typeof HONORIFICS)[number]>('御中');
  const [busy, setBusy] = useState(false);
  const [fields, setFields] = useState<FieldErrors>({});
  const [message, setMessage] = useState('');
  const [issued, setIssued] = useState('');
  const legend = useId();
  const create = async () => {
    setBusy(true);
    setFields({});
    setMessage('');
    try {
      setIssued(await downloadQuotation(licenseId, addressee, honorific));
    } catch (caught) {
      const error = caught instanceof ApiError ? caught : networkError();
      setFields(error.errors);
      setMessage(Object.keys(error.errors).length ? '' : error.message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <details className="quotation">
      <summary>見積書（PDF）を作成する</summary>
      <p className="small">ご所属先への購入申請などにお使いいただけます。有効期限は発行日から30日です。</p>
      <TextInput
        label="宛名（60文字以内・敬称なし）"
        name="quotation_addressee"
        value={addressee}
        autoComplete="organization"
        required
        message={fields.addressee}
        onInput={setAddressee}
      />
      <fieldset aria-labelledby={legend}>
        <legend id={legend}>敬称</legend>
        {HONORIFICS.map((value) => (
          <label key={value} className="quotation-choice">
            <input
              type="radio"
              name={`quotation-honorific-${licenseId}`}
              checked={honorific === value}
              onChange={() => setHonorific(value)}
            />
            {value}
          </label>
        ))}
        {fields.honorific ? <p className="field-message">{fields.honorific}</p> : null}
      </fieldset>
      <FormAlert message={message} errors={{}} />
      {issued ? <Notice>見積書（見積番号 {issued}）をダウンロードしました。</Notice> : null}
      <div className="actions">
        <button type="button" className="button" onClick={() => void create()} disabled={busy}>
          {busy ? '作成しています…' : '見積書を作成'}
        </button>
      </div>
    </details>
  );
}
