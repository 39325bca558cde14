import { ROLE_LABELS } from '../../http/access.ts';
import type { AuditLabels } from '../audit/index.ts';
import { AFFILIATIONS } from './affiliations.ts';
import { userNames } from './audit-names.ts';
import { describeUserAgent } from './user-agent.ts';

/** How the audit log names what administrators do to accounts (the host hands these to the audit module). */
export const accountAuditLabels = {
  actions: {
    'user.update': 'ユーザー情報の変更',
    'user.force_password': 'パスワードの強制変更',
    'user.delete': 'ユーザーの削除',
    'user.withdraw': '退会',
    'user.role': '役割の変更',
    'user.resend_verification': '確認メールの再送信',
    'user.export': '会員CSVのダウンロード',
    'user.note': '会員のメモの追加',
    'admin.sign_in': '管理者のログイン',
    'admin.sign_in_failed': '管理者のログイン失敗',
    'admin.network_refused': '許可されていないネットワークからの管理画面の利用',
  },
  targets: { user: 'ユーザー' },
  verbs: { role: '権限の変更', resend_verification: '確認メールの再送信' },
  fields: {
    email: 'メールアドレス',
    last_name: '姓',
    first_name: '名',
    last_name_kana: 'セイ（フリガナ）',
    first_name_kana: 'メイ（フリガナ）',
    sort: '並び順',
    affiliations: '所属',
    affiliation: '所属',
    affiliation_name: '所属名',
    affiliation_other: 'その他の所属',
    distribution: 'お知らせメール',
    role: '役割',
    sign_in_method: 'ログイン方法',
    sign_in_failure: '誤っていたもの',
    ip: 'IPアドレス',
    user_agent: 'ブラウザ',
    note: 'メモ',
  },
  fieldsByTarget: { user: { name: '氏名' } },
  values: {
    affiliations: AFFILIATIONS,
    affiliation: AFFILIATIONS,
    distribution: (v) => (v ? '受け取る' : '受け取らない'),
    sort: {
      '-created_at': '登録の新しい順',
      created_at: '登録の古い順',
      kana: 'フリガナ順（五十音）',
      name: '姓の順',
      '-name': '姓の逆順',
      email: 'メールアドレス順',
      '-email': 'メールアドレスの逆順',
      '-purchases': '購入回数の多い順',
      purchases: '購入回数の少ない順',
      '-paid_total': '購入金額の多い順',
      paid_total: '購入金額の少ない順',
      '-last_purchase': '最終購入の新しい順',
      last_purchase: '最終購入の古い順',
    },
    user_agent: (v) => describeUserAgent(typeof v === 'string' ? v : null),
    role: ROLE_LABELS,
    sign_in_method: {
      password: 'パスワードのみ',
      two_factor: 'パスワードと確認コード',
      recovery_code: 'パスワードとリカバリーコード',
      passkey: 'パスキー',
    },
    sign_in_failure: { password: 'パスワード', two_factor: '確認コード', recovery_code: 'リカバリーコード' },
  },
  names: { user: userNames },
} satisfies AuditLabels;
