import { useEffect } from 'react';
import { Link, useParams } from 'react-router';
import { checkoutTarget } from '../checkout-url';

/** /licenses/checkout/{protocol}/{page}/{token}: forwards to the configured checkout host only. */
export function CheckoutRedirectPage() {
  const { protocol = '', page = '', token = '' } = useParams();
  const target = checkoutTarget(protocol, page, token);
  useEffect(() => {
    if (target) window.location.replace(target);
  }, [target]);
  if (!target) {
    return (
      <section className="card narrow">
        <h1>お支払いページに移動できません</h1>
        <p role="alert">
          お支払いページのアドレスが正しくありません。お手数ですが、ライセンスのページからもう一度お手続きください。
        </p>
        <p>
          <Link to="/licenses">ライセンス一覧へ</Link>
        </p>
      </section>
    );
  }
  return (
    <section className="card narrow">
      <h1>お支払いページに移動しています</h1>
      <p role="status">
        画面が切り替わらない場合は、<a href={target}>こちら</a>を押してください。
      </p>
    </section>
  );
}
