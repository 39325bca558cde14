import { isRouteErrorResponse, useRouteError } from 'react-router';
import { WayOn } from '../components/ui/way-on';
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

/** Shown for errors thrown while loading or rendering a route: what happened and where to go from here. */
export function RouteErrorPage() {
  const error = useRouteError();
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
