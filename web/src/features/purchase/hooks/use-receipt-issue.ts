import { useState } from 'react';
import { ApiError } from '../../../lib/api';
import { downloadReceipt, type ReceiptState } from '../receipt-api';

export type ReceiptFieldErrors = Partial<Record<'addressee' | 'addressee_text' | 'honorific' | 'proviso', string>>;
interface ReceiptFailure {
  message?: string;
  fields?: ReceiptFieldErrors;
}

/** Downloads the PDF (each time counted by the server) and reads the receipt's state again. */
export function useReceiptIssue(saleId: number, data: ReceiptState | undefined, refresh: () => unknown) {
  const [failure, setFailure] = useState<ReceiptFailure>({});
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState('');
  const issue = async (again: boolean) => {
    if (!data) return;
    setBusy(true);
    setFailure({});
    try {
      await downloadReceipt(saleId, `領収書_${data.receipt_number}.pdf`);
      setNotice(again ? '領収書（再発行）をダウンロードしました。' : '領収書をダウンロードしました。');
    } catch (caught) {
      setFailure({ message: caught instanceof ApiError ? caught.message : '領収書を発行できませんでした。' });
    } finally {
      setBusy(false);
      void refresh();
    }
  };
  return { failure, setFailure, busy, setBusy, notice, issue };
}

export type ReceiptIssue = ReturnType<typeof useReceiptIssue>;
