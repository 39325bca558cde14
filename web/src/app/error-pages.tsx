import { useEffect } from 'react';
import { isRouteErrorResponse, useRouteError } from 'react-router';
import { WayOn } from '../components/ui/way-on';
import { markDrawn } from '../lib/first-draw';
import { Footer, Header } from './layout';

export function NotFoundPage() {
  return (
    <section className="card narrow">
      <h1>ページが見つかりません</h1>
      <p>お探しのページは移動または削除された可能性があります。</p>
      <WayOn />
    </section>
  );
}

/** Staff signed in from a network outside ADMIN_ALLOWED_NETWORKS (403 admin_network_refused). */
export function NetworkRefusedPage() {
  useEffect(markDrawn, []);
  return (
    <section className="card narrow">
      <h1>このネットワークからは管理画面を使えません</h1>
      <p>
        管理画面は、許可されたネットワーク（社内のネットワークなど）からだけ使えます。いまお使いの接続元は許可されていません。
        許可された場所から接続し直すか、管理者にお問い合わせください。
      </p>
      <p className="small">この接続は操作履歴に記録されました。</p>
      <WayOn />
    </section>
  );
}

/**
 * A screen's code could not be fetched: after a release the page still names the old files (Chrome:
 * "Failed to fetch dynamically imported module", Firefox: "error loading dynamically imported module",
 * Safari: "Importing a module script failed", Vite: "Unable to preload CSS").
 */
function isChunkLoadError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return /dynamically imported module|importing a module script failed|unable to preload css/i.test(error.message);
}

/** Shown for errors thrown while loading or rendering a route: what happened and where to go from here. */
export function RouteErrorPage() {
  const error = useRouteError();
  useEffect(markDrawn, []);
  if (isChunkLoadError(error)) return <NewReleasePage />;
  let title = 'エラーが発生しました';
  let message = '時間をおいて再度お試しください。';
  if (isRouteErrorResponse(error)) {
    const body = error.data as { message?: string } | undefined;
    if (error.status === 403) title = 'アクセスできません';
    if (error.status === 404) title = 'ページが見つかりません';
    message = body?.message ?? message;
  } else if (error instanceof Error && error.name === 'ApiError') {
    message = error.message;
  }
  return (
    <div className="app">
      <Header />
      <main id="main" className="content">
        <section className="card narrow">
          <h1>{title}</h1>
          <p role="alert">{message}</p>
          <WayOn />
        </section>
      </main>
      <Footer />
    </div>
  );
}

/** The shop was updated while this page was open: reloading fetches the new release's files. */
function NewReleasePage() {
  return (
    <div className="app">
      <Header />
      <main id="main" className="content">
        <section className="card narrow">
          <h1>サイトが更新されました</h1>
          <p role="alert">
            ページを開いている間にサイトが新しくなったため、この画面を表示できませんでした。再読み込みすると最新の画面を表示します。
          </p>
          <p>
            <button type="button" className="button primary" onClick={() => window.location.reload()}>
              再読み込みする
            </button>
          </p>
          <WayOn />
        </section>
      </main>
      <Footer />
    </div>
  );
}
