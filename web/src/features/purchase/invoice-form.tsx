import { useId, useState } from 'react';

/** 御請求書: the addressee as on the receipt (the member's name 様, the organisation 御中, or typed), as a PDF link. */
export function InvoiceForm({ userId, orderNumber }: { userId: string; orderNumber: string }) {
  const [addressee, setAddressee] = useState<'name' | 'organisation' | 'custom'>('organisation');
  const [text, setText] = useState('');
  const [honorific, setHonorific] = useState<'様' | '御中'>('御中');
  const id = useId();
  const query = new URLSearchParams(addressee === 'custom' ? { addressee, addressee_text: text, honorific } : { addressee });
  const ready = addressee !== 'custom' || text.trim() !== '';
  return (
    <fieldset className="invoice-form">
      <legend>御請求書（PDF）</legend>
      <label htmlFor={`${id}-kind`}>宛名</label>
      <select id={`${id}-kind`} value={addressee} onChange={(e) => setAddressee(e.target.value as typeof addressee)}>
        <option value="organisation">所属（御中）</option>
        <option value="name">氏名（様）</option>
        <option value="custom">宛名を入力する</option>
      </select>
      {addressee === 'custom' ? (
        <>
          <label htmlFor={`${id}-text`}>宛名（60文字まで）</label>
          <input id={`${id}-text`} value={text} maxLength={60} onChange={(e) => setText(e.target.value)} />
          <label htmlFor={`${id}-honorific`}>敬称</label>
          <select id={`${id}-honorific`} value={honorific} onChange={(e) => setHonorific(e.target.value as typeof honorific)}>
            <option value="御中">御中</option>
            <option value="様">様</option>
          </select>
        </>
      ) : null}
      <p>
        {ready ? (
          <a className="button" href={`/api/users/${userId}/orders/${encodeURIComponent(orderNumber)}/invoice?${query}`}>
            御請求書を表示する（PDF）
          </a>
        ) : (
          <span className="small">宛名を入力すると御請求書を表示できます。</span>
        )}
      </p>
    </fieldset>
  );
}
