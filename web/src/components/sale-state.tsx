import type { Schema } from '../lib/api';
import { formatMonthDay } from '../lib/japan-time';

type SaleTerms = Pick<Schema<'License'>, 'sale_state' | 'remaining_seats' | 'sale_starts_at'>;

/** 残りわずか from this many seats left. */
const FEW_SEATS = 5;

/** 販売開始前（12月1日から） / 満席 / 販売終了 / 残りわずか, or null for a licence on sale with seats to spare. */
function saleLabel(terms: SaleTerms): string | null {
  switch (terms.sale_state) {
    case 'before_sale':
      return terms.sale_starts_at ? `販売開始前（${formatMonthDay(terms.sale_starts_at)}から）` : '販売開始前';
    case 'sold_out':
      return '満席';
    case 'sale_ended':
      return '販売終了';
    default:
      return terms.remaining_seats != null && terms.remaining_seats <= FEW_SEATS
        ? `残りわずか（残り${terms.remaining_seats}席）`
        : null;
  }
}

/** Whether 購入手続き may start now. */
export const onSale = (terms: SaleTerms) => terms.sale_state === undefined || terms.sale_state === 'on_sale';

export function SaleBadge({ terms }: { terms: SaleTerms }) {
  const label = saleLabel(terms);
  if (!label) return null;
  return <span className={`tag sale-${terms.sale_state ?? 'on_sale'}`}>{label}</span>;
}

/** The detail and procedure pages: why it cannot be bought now. */
export function SaleStateNotice({ terms }: { terms: SaleTerms }) {
  if (onSale(terms)) return null;
  const text =
    terms.sale_state === 'sold_out'
      ? '満席のため、現在お申し込みいただけません。'
      : terms.sale_state === 'before_sale'
        ? `販売期間外です。${terms.sale_starts_at ? `${formatMonthDay(terms.sale_starts_at)}から` : 'まもなく'}お申し込みいただけます。`
        : '販売期間外です。このライセンスの販売は終了しました。';
  return (
    <div className="notice" role="status">
      <p>
        <strong>{saleLabel(terms)}</strong>
      </p>
      <p className="small">{text}</p>
    </div>
  );
}
