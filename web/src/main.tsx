import { StrictMode, startTransition, useEffect } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router/dom';
import { SWRConfig } from 'swr';
import './lib/history-pop';
import { documentTitle } from './app/route-meta';
import { createRouter } from './app/router';
import { fetcher } from './lib/api';
import { readConfig } from './lib/config';
import { firstDraw } from './lib/first-draw';
import { pageTitleFor, subscribePageTitle } from './lib/page-title';
import './styles.css';

const config = readConfig();
const router = createRouter();

if (config.sentryDsn) {
  const { sentryDsn } = config;
  // Error reporting is loaded once the first page has drawn, so it never delays it. Errors before
  // then are kept and sent when it starts.
  const earlier: unknown[] = [];
  const onError = (event: ErrorEvent) => earlier.push(event.error ?? event.message);
  const onRejection = (event: PromiseRejectionEvent) => earlier.push(event.reason);
  window.addEventListener('error', onError);
  window.addEventListener('unhandledrejection', onRejection);
  const start = () =>
    import('./lib/error-reporting')
      .then(({ startErrorReporting }) => {
        window.removeEventListener('error', onError);
        window.removeEventListener('unhandledrejection', onRejection);
        startErrorReporting({ ...config, sentryDsn }, earlier);
      })
      // A release replaced since this page loaded (its chunk is gone): the next load reports again.
      .catch(() => undefined);
  const whenIdle = () =>
    'requestIdleCallback' in window ? requestIdleCallback(start, { timeout: 3000 }) : setTimeout(start, 500);
  // Started at the latest 10 s after the load, should no screen ever draw.
  void Promise.race([firstDraw, new Promise((resolve) => setTimeout(resolve, 10_000))]).then(whenIdle);
}

function syncTitle(state: typeof router.state) {
  const own = pageTitleFor(state.location.pathname);
  document.title = documentTitle(own ? { title: own } : (state.matches.at(-1)?.route.handle as { title?: string } | undefined));
}

function TitleSync() {
  useEffect(() => {
    syncTitle(router.state);
    const stopPage = subscribePageTitle(() => syncTitle(router.state));
    const stopRouter = router.subscribe(syncTitle);
    return () => {
      stopPage();
      stopRouter();
    };
  }, []);
  return null;
}

const root = document.getElementById('root');
if (root) {
  const app = createRoot(root);
  // Drawn as a transition: React yields to the browser every few milliseconds instead of holding the
  // main thread for the whole first render (the page answers taps sooner on a slow phone).
  startTransition(() =>
    app.render(
      <StrictMode>
        <SWRConfig value={{ fetcher, revalidateOnFocus: false, shouldRetryOnError: false }}>
          <TitleSync />
          <RouterProvider router={router} />
        </SWRConfig>
      </StrictMode>,
    ),
  );
}
