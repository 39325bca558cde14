import { useEffect, useId, useRef, useState } from 'react';
import { ApiError, type Schema } from '../../lib/api';
import { ReceiptDialogBody } from './components/receipt-dialog-body';
import { downloadReceipt, receiptNumberOf } from './receipt-api';
import './receipt.css';

/** What the action needs of a row of the purchase history. */
export type ReceiptSale = Pick<Schema<'Sale'>, 'id' | 'license_name' | 'refunded_at'> & { paid_at?: string | null };

/**
 * The administrators' view of a member's receipt: the 控え only, marked as such on the PDF, never
 * counted and never fixing the member's addressee — no addressee dialog.
 */
export function ReceiptCopyAction({ sale }: { sale: ReceiptSale }) {
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState('');
  if (sale.refunded_at || !sale.paid_at) return <span>—</span>;
  const download = async () => {
    setBusy(true);
    setFailure('');
    try {
      await downloadReceipt(sale.id, `領収書_${receiptNumberOf(sale.id)}_控え.pdf`, true);
    } catch (caught) {
      setFailure(caught instanceof ApiError ? caught.message : '控えを表示できませんでした。');
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="receipt-copy">
      <button type="button" className="button small" disabled={busy} onClick={() => void download()}>
        {busy ? '準備しています…' : '控え（PDF）'}
        <span className="visually-hidden">：{sale.license_name}の領収書の控え</span>
      </button>
      {failure ? (
        <p className="field-message" role="alert">
          {failure}
        </p>
      ) : null}
    </div>
  );
}

/**
 * 「領収書（PDF）」 of one paid sale in the member's purchase history. The first time it asks for the
 * addressee (the buyer's name, their organisation or a typed 宛名 with 様 or 御中) and the 但し書き,
 * both fixed from the first issue on; later issues are marked 再発行 on the PDF, and the dialog says so
 * before the member downloads again. `autoOpen`: the purchase mail's link opens it at once.
 */
export function ReceiptAction({ sale, autoOpen = false }: { sale: ReceiptSale; autoOpen?: boolean }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const title = useRef<HTMLHeadingElement>(null);
  const [open, setOpen] = useState(false);
  const titleId = useId();
  const available = !sale.refunded_at && Boolean(sale.paid_at);
  const show = () => {
    setOpen(true);
    if (!dialog.current?.open) dialog.current?.showModal();
    // The dialog's content, read from its title, rather than its first button (「閉じる」, as the body is still loading).
    title.current?.focus();
  };
  // biome-ignore lint/correctness/useExhaustiveDependencies: opened once, when the page is reached through the mail's link
  useEffect(() => {
    if (autoOpen && available) show();
  }, [autoOpen, available]);
  if (!available) return <span>—</span>;
  return (
    <>
      <button type="button" className="button small" aria-haspopup="dialog" onClick={show}>
        領収書（PDF）
        <span className="visually-hidden">：{sale.license_name}</span>
      </button>
      <dialog ref={dialog} className="receipt-dialog" aria-labelledby={titleId} onClose={() => setOpen(false)}>
        <h2 id={titleId} ref={title} tabIndex={-1}>
          領収書の発行
        </h2>
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
