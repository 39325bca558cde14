import { AFFILIATION_OTHER, affiliationLabel, type ProfileValues } from '../api/profile';

/**
 * The profile as a definition list: confirm screens and the member page show exactly this; a page may
 * add rows of its own (`children`: more dt/dd pairs).
 */
export function ProfileSummary({
  values,
  pendingEmail,
  children,
}: {
  values: ProfileValues;
  pendingEmail?: string | null;
  children?: React.ReactNode;
}) {
  return (
    // A long e-mail address wraps anywhere instead of widening the page; Japanese text wraps between phrases.
    <dl className="summary">
      <dt>メールアドレス</dt>
      <dd>
        <span className="latin-break">{values.email}</span>
        {pendingEmail ? (
          <span className="pending">
            （<span className="latin-break">{pendingEmail}</span> に変更手続き中：確認メールのリンクを開くと変更されます）
          </span>
        ) : null}
      </dd>
      <dt>氏名</dt>
      <dd>
        {values.last_name} {values.first_name}
      </dd>
      <dt>フリガナ</dt>
      <dd>{`${values.last_name_kana} ${values.first_name_kana}`.trim() || '未登録'}</dd>
      <dt>所属</dt>
      <dd>
        {affiliationLabel(values.affiliations)}
        {values.affiliations === AFFILIATION_OTHER && values.affiliation_other ? `（${values.affiliation_other}）` : ''}
      </dd>
      <dt>所属名</dt>
      <dd>{values.affiliation_name || '未設定'}</dd>
      <dt>メールでのご案内</dt>
      <dd>{values.distribution ? '受け取る' : '受け取らない'}</dd>
      {children}
    </dl>
  );
}
