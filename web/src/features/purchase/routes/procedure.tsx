import { useState } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { legal, purchaseTerms } from '../../../../../src/site-settings';
import { QuotationForm } from '../../../components/quotation-form';
import { onSale, SaleStateNotice } from '../../../components/sale-state';
import { CheckboxField } from '../../../components/ui/checkbox-field';
import { FormAlert, Notice } from '../../../components/ui/form-alert';
import { LoadError, Loading } from '../../../components/ui/load-state';
import { LoadingOverlay } from '../../../components/ui/loading-overlay';
import { type Answer, ApiError } from '../../../lib/api';
import { useAuth } from '../../../lib/auth-store';
import { formatPrice } from '../../../lib/format';
import { useFormSubmit } from '../../../lib/use-form-submit';
import { startCheckout, useHoldings, useLicenseSummary } from '../api';
import { checkoutRoute } from '../checkout-url';

const seller = legal.items.find((item) => item.term === '販売事業者')?.detail ?? '';

/** POST /api/licenses/stripe's 409: held, being paid for, no seat left, or outside the sale period. */
interface SecondPurchase {
  code: 'already_purchased' | 'payment_pending' | 'sold_out' | 'not_on_sale';
  message: string;
  voucher_url?: string | null;
  order_url?: string | null;
}
const REFUSALS = new Set(['already_purchased', 'payment_pending', 'sold_out', 'not_on_sale']);

const secondPurchaseOf = (error: unknown): SecondPurchase | null => {
  if (!(error instanceof ApiError) || error.status !== 409) return null;
  const body = error.body as Partial<SecondPurchase> | undefined;
  return body?.code && REFUSALS.has(body.code) ? (body as SecondPurchase) : null;
};

type Holding = Answer<'/api/me/holdings'>['holdings'][number];

const PENDING_TEXT = {
  bank_transfer:
    'このライセンスは銀行振込でのお支払いをお待ちしています。お振込先（お客さま専用口座）へ、期限までにお振り込みください。',
  konbini: 'このライセンスはコンビニでのお支払いをお待ちしています。お支払い番号に沿って期限までにお支払いください。',
  card: 'このライセンスはお支払いをお待ちしています。',
} as const;

/** Known on load: the licence is held or being paid for (購入済み / お支払い待ち, by konbini or bank transfer). */
function HeldNotice({ holding, userId, historyPath }: { holding: Holding; userId: string; historyPath: string }) {
  const transfer = holding.payment_method === 'bank_transfer';
  return (
    <div className="notice" role="status">
      <p>
        <strong>{holding.state === 'purchased' ? '購入済み' : transfer ? 'お支払い待ち（銀行振込）' : 'お支払い待ち'}</strong>
      </p>
      <p className="small">
        {holding.state === 'purchased'
          ? 'このライセンスはご購入済みのため、もう一度購入する必要はありません。'
          : PENDING_TEXT[holding.payment_method ?? 'konbini']}
        {holding.state === 'payment_pending' && holding.order_number ? (
          <>
            <Link to={`/users/${userId}/orders/${holding.order_number}`}>
              {transfer ? 'ご注文の内容（お振込先）を見る' : 'ご注文の内容を見る'}
            </Link>
            ／
          </>
        ) : null}
        <Link to={historyPath}>購入履歴を見る</Link>
      </p>
    </div>
  );
}

/** What is bought, for how much, how and from whom (特定商取引法). */
function PurchaseSummary({ license }: { license: { name: string; price: number } }) {
  return (
    <dl className="summary">
      <dt>ライセンス</dt>
      <dd>{license.name}</dd>
      <dt>数量</dt>
      <dd>1</dd>
      <dt>お支払い金額</dt>
      <dd className="price-inline">{formatPrice(license.price)}</dd>
      <dt>お支払い方法</dt>
      <dd>{purchaseTerms.paymentMethods}</dd>
      <dt>お支払い時期</dt>
      <dd>{purchaseTerms.paymentTiming}</dd>
      <dt>ライセンスの提供時期</dt>
      <dd>{purchaseTerms.delivery}</dd>
      <dt>キャンセル・返金</dt>
      <dd>{purchaseTerms.cancellation}</dd>
      <dt>販売事業者</dt>
      <dd>{seller}</dd>
    </dl>
  );
}

/** A licence the member already holds or is paying for: why not again, and where to look. */
function SecondPurchaseNotice({ refused, historyPath }: { refused: SecondPurchase; historyPath: string }) {
  return (
    <div className="notice" role="alert">
      <p>{refused.message}</p>
      <p>
        {refused.voucher_url ? (
          <>
            <a href={refused.voucher_url} target="_blank" rel="noreferrer">
              お支払い方法（払込票）を表示する
            </a>
            ／
          </>
        ) : null}
        {refused.order_url ? (
          <>
            <Link to={refused.order_url}>ご注文の内容を見る</Link>／
          </>
        ) : null}
        <Link to={historyPath}>購入履歴を見る</Link>
      </p>
    </div>
  );
}

/** /licenses/{id}/procedure: the final confirmation before Stripe Checkout (特定商取引法). */
export function ProcedurePage() {
  const { id } = useParams();
  const navigate = useNavigate();
  const canceled = useSearchParams()[0].get('canceled') === '1';
  const { data, error, isLoading, mutate } = useLicenseSummary(id);
  const [distribution, setDistribution] = useState(true);
  const { busy, message, errors, run } = useFormSubmit();
  const [refused, setRefused] = useState<SecondPurchase | null>(null);
  const me = useAuth().users[0];
  const holdings = useHoldings(me && me.role !== 'admin' ? me.id : undefined);
  const holding = holdings.data?.holdings.find((h) => h.license_id === Number(id));
  const historyPath = me ? `/users/${me.id}` : '/login';
  // Decided on load: nothing to pay for while held, awaiting payment, full or outside the period.
  const blocked = Boolean(holding) || (data ? !onSale(data.license) : false) || (Boolean(me) && holdings.isLoading);

  const proceed = () =>
    run(async () => {
      let url: string;
      try {
        ({ url } = await startCheckout({ licenseId: Number(id), distribution }));
      } catch (error) {
        const second = secondPurchaseOf(error);
        if (!second) throw error;
        setRefused(second);
        return;
      }
      const route = checkoutRoute(url);
      if (!route) throw new Error('unexpected checkout address');
      navigate(route);
    });

  return (
    <section className="card">
      <h1>ご購入手続き</h1>
      {canceled ? <Notice>お支払いはキャンセルされました。内容をご確認のうえ、もう一度お手続きいただけます。</Notice> : null}
      {isLoading ? <Loading /> : null}
      {error ? <LoadError error={error} onRetry={() => void mutate()} /> : null}
      {data ? (
        <>
          <p>
            以下の内容をご確認のうえ、「お支払いへ進む」を押してください。決済代行会社（Stripe）のお支払いページに移動します。
          </p>
          <PurchaseSummary license={data.license} />
          {holding ? <HeldNotice holding={holding} userId={me?.id ?? ''} historyPath={historyPath} /> : null}
          {holding ? null : <SaleStateNotice terms={data.license} />}
          <CheckboxField
            label="新しいトレーニングやライセンスのご案内をメールで受け取る"
            name="distribution"
            checked={distribution}
            onChange={setDistribution}
          />
          <p className="small">
            お申し込みにより<Link to="/terms">利用規約</Link>および
            <Link to="/specified_commercial_transactions_law">特定商取引法に基づく表記</Link>
            の内容に同意したものとみなします。
          </p>
          <FormAlert message={message} errors={errors} />
          {refused ? <SecondPurchaseNotice refused={refused} historyPath={historyPath} /> : null}
          <div className="actions">
            <Link to={`/licenses/${id}`} className="button">
              戻る
            </Link>
            <button
              type="button"
              className="button primary"
              onClick={() => void proceed()}
              disabled={busy || blocked || Boolean(refused)}
            >
              お支払いへ進む
            </button>
          </div>
          {holding ? null : <QuotationForm licenseId={data.license.id} />}
        </>
      ) : null}
      <LoadingOverlay show={busy} label="お支払いページを準備しています" />
    </section>
  );
}
