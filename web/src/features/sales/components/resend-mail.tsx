import { useState } from 'react';
import { FormAlert, Notice } from '../../../components/ui/form-alert';
import { type Answer, api } from '../../../lib/api';
import { useFormSubmit } from '../../../lib/use-form-submit';
import type { OrderDetail } from '../order-api';

/** 購入メールの再送: the purchase mail again to the member's address now (5 a day per order). */
export function ResendPurchaseMail({ sale, onChanged }: { sale: OrderDetail; onChanged: () => void }) {
  const [notice, setNotice] = useState('');
  const { busy, message, run } = useFormSubmit();
  const resend = () =>
    void run(async () => {
      const res = await api<Answer<'/api/sales/{id}/resend-purchase-mail', 'post'>>(
        `/api/sales/${sale.id}/resend-purchase-mail`,
        { method: 'POST' },
      );
      setNotice(res.message);
      onChanged();
    });
  const to = sale.buyer_now?.email ?? sale.buyer_at_purchase.email;
  return (
    <div className="subsection">
      <p className="small">
        購入時のお知らせメール（件名に「再送」と付きます）を、会員の現在のメールアドレス {to}{' '}
        にもう一度送ります。1つの注文につき1日5回までです。
      </p>
      {notice ? <Notice>{notice}</Notice> : null}
      <FormAlert message={message} />
      <button type="button" className="button" disabled={busy} onClick={resend}>
        購入メールを再送する
      </button>
    </div>
  );
}
