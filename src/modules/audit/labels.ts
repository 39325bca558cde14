import { AFFILIATIONS } from '../accounts/index.ts';

/**
 * How the audit log reads to an administrator: Japanese names for actions, record types and fields,
 * and each recorded value as text. Anything not named here (an action added later) still reads
 * sensibly: it falls back to its record type and verb, or to its own name.
 */
const ACTIONS: Record<string, string> = {
  'user.update': 'ユーザー情報の変更',
  'user.force_password': 'パスワードの強制変更',
  'user.delete': 'ユーザーの削除',
  'user.withdraw': '退会',
  'user.role': '管理者権限の変更',
  'user.resend_verification': '確認メールの再送信',
  'user.export': '会員CSVのダウンロード',
  'license.create': 'ライセンスの新規登録',
  'license.update': 'ライセンスの編集',
  'license.delete': 'ライセンスの削除',
  'sale.status': '発行状態の更新',
  'sale.revert': '発行状態の差し戻し',
  'sale.export': 'CSVの作成',
  'sale.export.batch': 'CSVの作成（処理中にする）',
  'sale.export.download': 'CSVのダウンロード',
  'sale.export.complete': 'CSVの売上を登録済みにする',
  'sale.export.retry': 'CSVの再実行',
  'sale.receipt': '領収書の発行',
  'sale.receipt.reissue': '領収書の再発行',
  'payment.replay': '決済イベントの再処理',
  'reconciliation.run': '決済の照合',
  'reconciliation.acknowledge': '決済の照合結果を確認済みにする',
  'mail.resend': 'メールの再送信',
};

const TARGETS: Record<string, string> = {
  user: 'ユーザー',
  license: 'ライセンス',
  sale: '売上',
  sales: '売上',
  export: 'CSV出力',
  payment: '決済',
  payment_event: '決済イベント',
  reconciliation: '決済の照合',
  mail: 'メール',
};

const VERBS: Record<string, string> = {
  create: '登録',
  update: '変更',
  delete: '削除',
  run: '実行',
  replay: '再処理',
  revert: '差し戻し',
  status: '状態の変更',
  export: '出力',
  download: 'ダウンロード',
  role: '権限の変更',
  resend_verification: '確認メールの再送信',
};

/** The action's Japanese name; for one not known here, its subject and verb or its own name. */
export function actionLabel(action: string): string {
  const known = ACTIONS[action];
  if (known) return known;
  const parts = action.split('.');
  const subject = TARGETS[parts[0] ?? ''];
  const verb = VERBS[parts.at(-1) ?? ''];
  if (subject && verb && parts.length > 1) return `${subject}の${verb}`;
  if (subject) return `${subject}の操作（${action}）`;
  return action;
}

export const targetLabel = (targetType: string): string => TARGETS[targetType] ?? targetType;

/** Named actions and record types first, in the order above; the others after them, alphabetically. */
const byKnownOrder = (known: Record<string, string>) => {
  const order = Object.keys(known);
  const rank = (key: string) => (order.includes(key) ? order.indexOf(key) : order.length);
  return (a: string, b: string) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0);
};
export const actionOrder = byKnownOrder(ACTIONS);
export const targetOrder = byKnownOrder(TARGETS);

const FIELDS: Record<string, string> = {
  email: 'メールアドレス',
  last_name: '姓',
  first_name: '名',
  last_name_kana: 'セイ（フリガナ）',
  first_name_kana: 'メイ（フリガナ）',
  affiliations: '所属',
  affiliation: '所属',
  affiliation_name: '所属名',
  affiliation_other: 'その他の所属',
  distribution: 'お知らせメール',
  role: '権限',
  description: '説明',
  price: '価格',
  published: '公開',
  pictures: '画像',
  status: '状態',
  sale_ids: '対象の売上',
  reason: '理由',
  filters: '検索条件',
  encoding: '文字コード',
  batch: '処理中にする',
  replace_unmappable: '表せない文字を〓に置き換える',
  rows: '件数',
  sha256: 'SHA-256',
  state: '処理状態',
  outcome: '処理結果',
  error: 'エラー',
  days: '照合した期間',
  issue_count: '発行回数',
  receipt_number: '領収書番号',
  addressee: '宛名',
};

/** Field names that depend on the record: a licence's `name` is its ライセンス名. */
const FIELDS_BY_TARGET: Record<string, Record<string, string>> = {
  license: { name: 'ライセンス名' },
  user: { name: '氏名' },
};

export const fieldLabel = (targetType: string, field: string): string =>
  FIELDS_BY_TARGET[targetType]?.[field] ?? FIELDS[field] ?? field;

/** Fields in the order of the forms (jsonb keeps keys in its own order): the name first, unknown ones last. */
const ORDER = ['name', ...Object.keys(FIELDS)];
export const fieldRank = (field: string): number => {
  const rank = ORDER.indexOf(field);
  return rank < 0 ? ORDER.length : rank;
};

/** Fields that are never shown, whatever an entry recorded: secrets and what derives from them. */
export const isSecretField = (field: string) =>
  /password|passwd|hash|token|secret|salt|credential|cookie|api_?key|(^|_)otp(_|$)/i.test(field);

const SALE_STATUS: Record<string, string> = { 0: '出力待ち', 1: '処理中', 2: '登録済み' };
const ROLES: Record<string, string> = { admin: '管理者', user: '一般会員' };
const ENCODINGS: Record<string, string> = { 'utf-8': 'UTF-8', shift_jis: 'Shift_JIS（CP932）' };
/** A Stripe event's processing state and outcome (the payments inbox words them the same way). */
const EVENT_STATES: Record<string, string> = { received: '未処理', processed: '処理済み', failed: '失敗' };
const OUTCOMES: Record<string, string> = {
  paid: '売上を記録',
  'paid and refunded': '売上を記録し返金を反映',
  refunded: '返金を反映',
  'awaiting payment': '入金待ち（コンビニ決済）',
  'payment failed': '支払い失敗を反映',
  expired: '期限切れを反映',
  flagged: '金額・通貨の不一致（売上にしていません）',
  'unknown session': '対応する購入手続きがありません',
  ignored: '対応不要',
};
const FILTER_FIELDS: Record<string, string> = {
  licenseId: 'ライセンス',
  license_id: 'ライセンス',
  status: '状態',
  q: '購入者',
  paidFrom: '購入日（から）',
  paid_from: '購入日（から）',
  paidTo: '購入日（まで）',
  paid_to: '購入日（まで）',
  // The member CSV's (user.export)
  name: '氏名',
  email: 'メールアドレス',
  affiliations: '所属',
  sort: '並び順',
};
const LISTED = 10;

const yesNo = (value: unknown) => (value ? 'はい' : 'いいえ');
const isEmpty = (value: unknown) =>
  value === null || value === undefined || value === '' || (Array.isArray(value) && value.length === 0);

function plain(value: unknown): string {
  if (typeof value === 'boolean') return yesNo(value);
  if (typeof value === 'number') return value.toLocaleString('ja-JP');
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(plain).join('、');
  if (value && typeof value === 'object') {
    return Object.entries(value)
      .filter(([key, v]) => !isSecretField(key) && !isEmpty(v))
      .map(([key, v]) => `${key}: ${plain(v)}`)
      .join('、');
  }
  return String(value);
}

function list(values: unknown[], format: (value: unknown) => string = plain): string {
  const shown = values.slice(0, LISTED).map(format).join('、');
  return values.length > LISTED ? `${values.length.toLocaleString('ja-JP')}件（${shown}ほか）` : shown;
}

const FORMATS: Record<string, (value: unknown) => string> = {
  affiliations: (v) => {
    const name = AFFILIATIONS[Number(v) as keyof typeof AFFILIATIONS];
    return name ?? plain(v);
  },
  distribution: (v) => (v ? '受け取る' : '受け取らない'),
  role: (v) => ROLES[String(v)] ?? plain(v),
  price: (v) => (typeof v === 'number' ? `¥${v.toLocaleString('ja-JP')}` : plain(v)),
  published: (v) => (v ? '公開' : '非公開'),
  status: (v) => SALE_STATUS[String(v)] ?? plain(v),
  encoding: (v) => ENCODINGS[String(v)] ?? plain(v),
  state: (v) => EVENT_STATES[String(v)] ?? plain(v),
  outcome: (v) => OUTCOMES[String(v)] ?? plain(v),
  days: (v) => (typeof v === 'number' ? `${v.toLocaleString('ja-JP')}日分` : plain(v)),
  pictures: (v) => (Array.isArray(v) ? `${v.length}枚${v.length ? `（${list(v)}）` : ''}` : plain(v)),
  sale_ids: (v) =>
    Array.isArray(v)
      ? v.length > LISTED
        ? list(v, (id) => `#${id}`)
        : `${v.length}件（${list(v, (id) => `#${id}`)}）`
      : plain(v),
  filters: (v) => {
    if (!v || typeof v !== 'object' || Array.isArray(v)) return plain(v);
    const parts = Object.entries(v)
      .filter(([key, value]) => !isSecretField(key) && !isEmpty(value))
      .map(([key, value]) => {
        const label = FILTER_FIELDS[key] ?? key;
        const text = key === 'status' ? (SALE_STATUS[String(value)] ?? plain(value)) : plain(value);
        return `${label}: ${key.startsWith('license') ? `#${text}` : text}`;
      });
    return parts.length ? parts.join('、') : 'すべて';
  },
};
FORMATS.affiliation = FORMATS.affiliations as (value: unknown) => string;

/** A recorded value as text for the screen; nothing (null, '', []) is null. */
export function formatValue(field: string, value: unknown): string | null {
  if (isEmpty(value)) return null;
  const format = FORMATS[field];
  if (format) return format(value);
  return plain(value);
}
