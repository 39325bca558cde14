import { Link, useLocation, useParams } from 'react-router';
import { Notice } from '../../../components/ui/form-alert';
import { LoadError, Loading } from '../../../components/ui/load-state';
import { useAuth } from '../../../lib/auth-store';
import { isStaff } from '../../../lib/permissions';
import { profileOf } from '../api/profile';
import { useMember } from '../api/use-member';
import { ProfileSummary } from '../components/profile-summary';
import { SessionList } from '../components/session-list';

/** /users/{id}: member information (the purchase history joins it with the purchase feature). */
export function UserDetailPage({ children }: { children?: React.ReactNode }) {
  const { id } = useParams();
  const flash = (useLocation().state as { message?: string } | null)?.message;
  const { data, error, isLoading, mutate } = useMember(id);
  // Only the member's own sessions can be listed (an administrator looking at this page sees theirs elsewhere).
  const own = useAuth().users[0]?.id === id;
  return (
    <section className="card">
      <h1>会員情報</h1>
      {flash ? <Notice>{flash}</Notice> : null}
      {isLoading ? <Loading /> : null}
      {error ? <LoadError error={error} onRetry={() => void mutate()} /> : null}
      {data ? (
        <>
          <ProfileSummary values={profileOf(data.user)} pendingEmail={data.user.pending_email} />
          <div className="actions">
            <Link to={`/users/${data.user.id}/edit`} className="button">
              会員情報を変更する
            </Link>
            <Link to={`/users/${data.user.id}/password`} className="button">
              パスワードを変更する
            </Link>
            <Link to="/account/security" className="button">
              二段階認証とパスキー
            </Link>
          </div>
          {!isStaff(data.user) ? (
            <p className="small">
              <Link to={`/users/${data.user.id}/withdraw`}>退会する（アカウントの削除）</Link>
            </p>
          ) : null}
        </>
      ) : null}
      {data ? children : null}
      {data && own ? <SessionList /> : null}
    </section>
  );
}
