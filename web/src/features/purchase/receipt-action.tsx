import { useEffect, useId, useRef, useState } from 'react';
import useSWR from 'swr';
import { FormAlert, Notice } from '../../components/ui/form-alert';
import { Loading } from '../../components/ui/load-state';
import { ApiError, api, networkError } from '../../lib/api';
import { focusAfterFailedSubmit } from '../../lib/use-form-submit';
import './receipt.css';

type AddresseeKind = 'name' | 'organisation';

interface ReceiptState {
  sale_id: number;
  receipt_number: string;
  license_name: string;
  issued: boolean;
  issue_count: number;
  addressee_kind: AddresseeKind | null;
  addressee: string | null;
  options: { value: AddresseeKind; label: string }[];
}

/** What the action needs of a row of the purchase history. */
export interface ReceiptSale {
  id: number;
  license_name: string;
  paid_at?: string | null;
  refunded_at: string | null;
}

const receiptUrl = (saleId: number) => `/api/sales/${saleId}/receipt`;

/**
 * Fetches the PDF and saves it under its Japanese name. Fetched, not navigated to: a refusal (refunded,
 * signed out) is shown in the dialog instead of replacing the page with its JSON.
 */
async function downloadReceipt(saleId: number, receiptNumber: string) {
  let res: Response;
  try {
    res = await fetch(receiptUrl(saleId), { credentials: 'include', cache: 'no-store' });
  } catch {
    throw networkError();
  }
  if (!res.ok) {
    const body = (await res.json().catch(() => undefined)) as { message?: string } | undefined;
    throw new ApiError(res.status, body?.message ?? '領収書を発行できませんでした。時間をおいて再度お試しください。');
  }
  const url = URL.createObjectURL(await res.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = `領収書_${receiptNumber}.pdf`;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/**
 * 「領収書（PDF）」 of one paid sale in the purchase history. The first time it asks for the addressee
 * (the buyer's name or their organisation), which is fixed from the first issue on; later issues are
 * marked 再発行 on the PDF, and the dialog says so before the member downloads again.
 */
export function ReceiptAction({ sale }: { sale: ReceiptSale }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [open, setOpen] = useState(false);
  const titleId = useId();
  if (sale.refunded_at || !sale.paid_at) return <span>—</span>;
  const show = () => {
    setOpen(true);
    dialog.current?.showModal();
  };
  return (
    <>
      <button type="button" className="button small" aria-haspopup="dialog" onClick={show}>
        領収書（PDF）
        <span className="visually-hidden">：{sale.license_name}</span>
      </button>
      <dialog ref={dialog} className="receipt-dialog" aria-labelledby={titleId} onClose={() => setOpen(false)}>
        <h2 id={titleId}>領収書の発行</h2>
        <p className="receipt-dialog-licence">{sale.license_name}</p>
        {open ? <ReceiptDialogBody saleId={sale.id} /> : null}
        <div className="receipt-dialog-actions">
          <button type="button" className="button secondary" onClick={() => dialog.current?.close()}>
            閉じる
          </button>
        </div>
      </dialog>
    </>
  );
}

function ReceiptDialogBody({ saleId }: { saleId: number }) {
  const { data, error, isLoading, mutate } = useSWR<ReceiptState>(`/api/sales/${saleId}/receipt-addressee`);
  const [choice, setChoice] = useState<AddresseeKind | null>(null);
  const [failure, setFailure] = useState<{ message?: string; field?: string }>({});
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState('');
  const fieldId = useId();
  // A refused choice: focus moves to the choices, as on every form (lib/use-form-submit.ts).
  useEffect(() => {
    if (failure.field) focusAfterFailedSubmit();
  }, [failure.field]);

  /** Downloads the PDF (each time counted by the server) and reads the receipt's state again. */
  const issue = async (again: boolean) => {
    if (!data) return;
    setBusy(true);
    setFailure({});
    try {
      await downloadReceipt(saleId, data.receipt_number);
      setNotice(again ? '領収書（再発行）をダウンロードしました。' : '領収書をダウンロードしました。');
    } catch (caught) {
      setFailure({ message: caught instanceof ApiError ? caught.message : '領収書を発行できませんでした。' });
    } finally {
      setBusy(false);
      void mutate();
    }
  };

  if (isLoading) return <Loading />;
  if (error || !data) {
    return (
      <div className="alert" role="alert">
        <p>{error instanceof ApiError ? error.message : '読み込みに失敗しました。時間をおいて再度お試しください。'}</p>
        <button type="button" className="button small" onClick={() => void mutate()}>
          再読み込み
        </button>
      </div>
    );
  }

  if (data.issued) {
    return (
      <div className="receipt-dialog-body">
        <dl className="receipt-dialog-facts">
          <dt>宛名</dt>
          <dd>{data.addressee}</dd>
          <dt>領収書番号</dt>
          <dd>{data.receipt_number}</dd>
          <dt>発行回数</dt>
          <dd>{data.issue_count}回</dd>
        </dl>
        <p>宛名は発行済みのため変更できません。もう一度ダウンロードすると、領収書に「再発行」と記載されます。</p>
        {notice ? <Notice>{notice}</Notice> : null}
        {failure.message ? <FormAlert message={failure.message} /> : null}
        <button type="button" className="button primary" disabled={busy} onClick={() => void issue(true)}>
          {busy ? '発行しています…' : '再発行する（PDF）'}
        </button>
      </div>
    );
  }

  // Nothing is preselected: the addressee is fixed once issued, so the member chooses it knowingly.
  const selected = choice ?? data.addressee_kind ?? null;
  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    if (!selected) {
      setFailure({ field: '宛名を選んでください。' });
      return;
    }
    setBusy(true);
    setFailure({});
    try {
      await api(`/api/sales/${saleId}/receipt-addressee`, { method: 'PUT', body: { addressee: selected } });
    } catch (caught) {
      setBusy(false);
      if (caught instanceof ApiError) {
        setFailure({ message: caught.errors.addressee ? undefined : caught.message, field: caught.errors.addressee });
        if (caught.status === 409) void mutate();
      } else {
        setFailure({ message: '宛名を保存できませんでした。時間をおいて再度お試しください。' });
      }
      return;
    }
    await issue(false);
  };

  return (
    <form className="receipt-dialog-body" onSubmit={submit} noValidate>
      <FormAlert message={failure.message} />
      <fieldset aria-describedby={`${fieldId}-note${failure.field ? ` ${fieldId}-error` : ''}`}>
        <legend>宛名</legend>
        {data.options.map((option) => (
          <label key={option.value} className="receipt-dialog-choice">
            <input
              type="radio"
              name={`addressee-${saleId}`}
              value={option.value}
              checked={selected === option.value}
              aria-invalid={failure.field ? true : undefined}
              onChange={() => setChoice(option.value)}
            />
            {option.value === 'name' ? '氏名' : '所属'}：{option.label}
          </label>
        ))}
        {failure.field ? (
          <p id={`${fieldId}-error`} className="field-message">
            {failure.field}
          </p>
        ) : null}
      </fieldset>
      <p id={`${fieldId}-note`} className="receipt-dialog-note">
        宛名は最初の発行のあとは変更できません。
      </p>
      <button type="submit" className="button primary" disabled={busy}>
        {busy ? '発行しています…' : 'この宛名で発行する（PDF）'}
      </button>
    </form>
  );
}
