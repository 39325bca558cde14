import { FormAlert, Notice } from '../../../components/ui/form-alert';
import { Loading } from '../../../components/ui/load-state';
import { ApiError } from '../../../lib/api';
import { type ReceiptIssue, useReceiptIssue } from '../hooks/use-receipt-issue';
import { type ReceiptState, useReceiptState } from '../receipt-api';
import { AddresseeForm } from './addressee-form';
import { KonbiniNote } from './konbini-note';

/** An issued receipt: its fixed addressee and 但し書き, how often issued, and 再発行. */
function IssuedReceipt({ data, receipt }: { data: ReceiptState; receipt: ReceiptIssue }) {
  return (
    <div className="receipt-dialog-body">
      {data.konbini ? <KonbiniNote /> : null}
      <dl className="receipt-dialog-facts">
        <dt>宛名</dt>
        <dd>{data.addressee}</dd>
        <dt>但し書き</dt>
        <dd>但し {data.proviso}</dd>
        <dt>領収書番号</dt>
        <dd>{data.receipt_number}</dd>
        <dt>発行回数</dt>
        <dd>{data.issue_count}回</dd>
      </dl>
      <p>宛名と但し書きは発行済みのため変更できません。もう一度ダウンロードすると、領収書に「再発行」と記載されます。</p>
      {receipt.notice ? <Notice>{receipt.notice}</Notice> : null}
      {receipt.failure.message ? <FormAlert message={receipt.failure.message} /> : null}
      <button type="button" className="button primary" disabled={receipt.busy} onClick={() => void receipt.issue(true)}>
        {receipt.busy ? '発行しています…' : '再発行する（PDF）'}
      </button>
    </div>
  );
}

/** The receipt dialog's content: the first issue's form, or the issued receipt. */
export function ReceiptDialogBody({ saleId }: { saleId: number }) {
  const { data, error, isLoading, mutate } = useReceiptState(saleId);
  const receipt = useReceiptIssue(saleId, data, mutate);
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
  if (data.issued) return <IssuedReceipt data={data} receipt={receipt} />;
  return <AddresseeForm saleId={saleId} data={data} receipt={receipt} refresh={mutate} />;
}
