import { yen } from '../../lib/yen.ts';
import type { AuditLabels } from '../audit/index.ts';
import { exportNames, movedSaleNames, saleNames } from './audit-names.ts';
import { SALE_STATUS_LABEL } from './entities/sale.entity.ts';

/** The sales search's filters as an entry recorded them (both spellings the API has taken). */
const FILTER_FIELDS: Record<string, string> = {
  license: 'ライセンス',
  licenseId: 'ライセンス',
  license_id: 'ライセンス',
  status: '状態',
  q: '購入者',
  paidFrom: '購入日（から）',
  paid_from: '購入日（から）',
  paidTo: '購入日（まで）',
  paid_to: '購入日（まで）',
  paymentMethod: 'お支払い方法',
  payment_method: 'お支払い方法',
};

const status = (value: unknown, plain: (value: unknown) => string) =>
  (SALE_STATUS_LABEL as Record<string, string>)[String(value)] ?? plain(value);

const yenLabel = (v: unknown, text: { plain: (value: unknown) => string }) => (typeof v === 'number' ? yen(v) : text.plain(v));

/** How the audit log names what administrators do to sales (the host hands these to the audit module). */
export const saleAuditLabels = {
  actions: {
    'sale.status': '発行状態の更新',
    'sale.revert': '発行状態の差し戻し',
    'sale.export': 'CSVの作成',
    'sale.export.batch': 'CSVの作成（処理中にする）',
    'sale.export.download': 'CSVのダウンロード',
    'sale.export.complete': 'CSVの売上を登録済みにする',
    'sale.export.retry': 'CSVの再実行',
    'sale.summary.download': '売上集計CSVのダウンロード',
    'sale.orders.download': '受注CSVのダウンロード',
    'sale.note': '注文のメモの追加',
    'sale.purchase_mail.resend': '購入のお知らせメールの再送',
    'sale.receipt': '領収書の発行',
    'sale.receipt.reissue': '領収書の再発行',
    'sale.receipt.copy': '領収書の控えの表示（管理者）',
    'sale.receipt.copy.mail': '領収書の控えのメール送付（管理者）',
    'sale.refund': '返金の依頼（Stripe へ）',
    'sale.refund.failed': '返金の依頼の取り下げ（Stripe が受け付けず）',
    'quotation.download': '御見積書の再ダウンロード（管理者）',
    'invoice.download': '御請求書の再ダウンロード（管理者）',
  },
  targets: {
    sale: '売上',
    sales: '売上',
    export: 'CSV出力',
    sales_summary: '売上集計',
    quotation: '御見積書',
    invoice: '御請求書',
  },
  fields: {
    status: '状態',
    sale_ids: '対象の売上',
    reason: '理由',
    filters: '検索条件',
    encoding: '文字コード',
    batch: '処理中にする',
    replace_unmappable: '表せない文字を〓に置き換える',
    rows: '件数',
    period: '集計期間',
    sha256: 'SHA-256',
    issue_count: '発行回数',
    receipt_number: '領収書番号',
    sent_to: '送付先',
    buyer_email: '購入時のメールアドレス',
    addressee: '宛名',
    proviso: '但し書き',
    refund_state: '返金',
    order_number: '注文番号',
    amount: '金額（税込）',
    exported: '研修管理システムへ出力済み',
    payment_intent: 'Stripe の支払いID',
    stripe: 'Stripe の応答',
    note: 'メモ',
    refunded_amount: '返金済みの額',
    refund_amount: '返金額',
    to: '送信先',
  },
  values: {
    status: (v, text) => status(v, text.plain),
    encoding: { 'utf-8': 'UTF-8', shift_jis: 'Shift_JIS（CP932）' },
    refund_state: { none: 'なし', requested: '返金手続き中', partially_refunded: '一部返金', refunded: '返金済み' },
    stripe: { refused: '返金を受け付けませんでした', unavailable: '接続できませんでした' },
    amount: yenLabel,
    refund_amount: yenLabel,
    refunded_amount: yenLabel,
    sale_ids: (v, text) => {
      if (!Array.isArray(v)) return text.plain(v);
      // Internal ids, said to be so (the screens show order numbers).
      const ids = text.list(v, (id) => `売上ID ${id}`);
      return v.length > 10 ? ids : `${v.length}件（${ids}）`;
    },
    filters: (v, text) => {
      if (!v || typeof v !== 'object' || Array.isArray(v)) return text.plain(v);
      const parts = Object.entries(v)
        .filter(([key, value]) => !text.isSecretField(key) && !text.isEmpty(value))
        .map(([key, value]) => {
          const label = FILTER_FIELDS[key] ?? key;
          const shown = key === 'status' ? status(value, text.plain) : text.plain(value);
          return `${label}: ${key === 'licenseId' || key === 'license_id' ? `ライセンスID ${shown}` : shown}`;
        });
      return parts.length ? parts.join('、') : 'すべて';
    },
  },
  names: { sale: saleNames, sales: movedSaleNames, export: exportNames },
} satisfies AuditLabels;
