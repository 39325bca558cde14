import { type FormEvent, useState } from 'react';
import { FormAlert, Notice } from '../../../components/ui/form-alert';
import { TextInput } from '../../../components/ui/text-input';
import { type Answer, api } from '../../../lib/api';
import { useFormSubmit } from '../../../lib/use-form-submit';
import type { OrderDetail } from '../order-api';

/** A withdrawn member asked for their receipt: its 控え mailed to the address they wrote from (audited). */
export function ReceiptCopyMail({ sale }: { sale: OrderDetail }) {
  const [email, setEmail] = useState(sale.buyer_at_purchase.email);
  const [sent, setSent] = useState('');
  const { busy, message, errors, run } = useFormSubmit();
  if (sale.refunded_at) return null;
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    await run(async () => {
      const answer = await api<Answer<'/api/sales/{id}/receipt-copy/mail', 'post'>>(`/api/sales/${sale.id}/receipt-copy/mail`, {
        method: 'POST',
        body: { email },
      });
      setSent(answer.message);
    });
  };
  return (
    <section className="subsection" aria-labelledby="receipt-copy-mail">
      <h2 id="receipt-copy-mail">領収書の控えをメールで送る</h2>
      <p className="small">
        退会した会員などからお問い合わせがあったとき、ご本人であることを確かめてから送ってください。送付は操作履歴に残ります。
      </p>
      {sent ? <Notice>{sent}</Notice> : null}
      <FormAlert message={message} errors={errors} fields={['email']} />
      <form onSubmit={submit} noValidate>
        <TextInput
          label="送付先のメールアドレス"
          name="email"
          type="email"
          required
          value={email}
          message={errors.email}
          onInput={setEmail}
        />
        <button type="submit" className="button" disabled={busy}>
          控えをメールで送る
        </button>
      </form>
    </section>
  );
}
