/**
 * What a member calls each field the API may report in a 422's `errors` (the forms' own labels), so
 * the answer's message can say which fields to fix: 「入力内容を確認してください。（メールアドレス、パスワード）」.
 * A key missing here is left out of the list (its message is still in `errors`).
 */
const FIELD_LABELS: Readonly<Record<string, string>> = {
  email: 'メールアドレス',
  email_confirmation: 'メールアドレス（確認）',
  last_name: '姓',
  first_name: '名',
  last_name_kana: 'セイ',
  first_name_kana: 'メイ',
  affiliations: '所属',
  affiliation_other: 'その他の所属',
  affiliation_name: '所属名',
  distribution: 'メールでのご案内',
  password: 'パスワード',
  password_confirmation: 'パスワード（確認）',
  old_password: '現在のパスワード',
  current_password: '現在のパスワード',
  new_password: '新しいパスワード',
  new_password_confirmation: '新しいパスワード（確認）',
  token: 'リンク',
  code: '確認コード',
  recovery_code: 'リカバリーコード',
  name: '名前',
  description: '説明',
  price: '価格',
  published: '公開・非公開',
  file: '画像',
  filenames: '画像',
  order: '画像の順番',
  updated_at: '更新日時',
  licenseId: 'ライセンス',
  license_id: 'ライセンス',
  status: '状態',
  state: '状態',
  type: '種類',
  session: 'Checkout Session',
  actor: '操作した人',
  action: '操作',
  target_type: '対象の種類',
  target_id: '対象のID',
  saleIds: '売上',
  reason: '理由',
  note: 'メモ',
  role: '権限',
  q: '検索語',
  from: '開始日',
  to: '終了日',
  paid_from: '購入日（から）',
  paid_to: '購入日（まで）',
  days: '日数',
  page: 'ページ',
  per_page: '表示件数',
  sort: '並び順',
  encoding: '文字コード',
  batch: '一括処理',
  addressee: '宛名',
  addressee_text: '宛名',
  proviso: '但し書き',
};

export const CHECK_INPUT = '入力内容を確認してください。';

/**
 * 「入力内容を確認してください。（メールアドレス、パスワード）」: the labels of the fields in `fields`, once
 * each, in the order the forms show them (FIELD_LABELS' order), whatever order they were reported in.
 * `own`: a form's own labels for its fields (「返金の理由」, not the generic 「理由」), first, in its order.
 */
export function checkInputMessage(fields: Iterable<string>, own: Readonly<Record<string, string>> = {}): string {
  const known: Record<string, string> = { ...FIELD_LABELS, ...own };
  const order = [...Object.keys(own), ...Object.keys(FIELD_LABELS)];
  const rank = (field: string) => {
    const at = order.indexOf(field in known ? field : (field.split('.')[0] ?? ''));
    return at === -1 ? order.length : at;
  };
  const labels: string[] = [];
  for (const field of [...fields].sort((a, b) => rank(a) - rank(b))) {
    const label = known[field] ?? known[field.split('.')[0] ?? ''];
    if (label && !labels.includes(label)) labels.push(label);
  }
  return labels.length ? `${CHECK_INPUT}（${labels.join('、')}）` : CHECK_INPUT;
}
