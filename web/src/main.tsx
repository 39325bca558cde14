import { StrictMode, startTransition, useEffect } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router/dom';
import { SWRConfig } from 'swr';
import { documentTitle } from './app/route-meta';
import { createRouter } from './app/router';
import { fetcher } from './lib/api';
import { readConfig } from './lib/config';
import './styles.css';

const config = readConfig();
if (config.sentryDsn) {
  // Loaded only when a DSN is configured. Uncaught errors and unhandled rejections are then
  // reported by Sentry's global handlers, with nothing shown to the user.
  void Promise.all([import('@sentry/react'), import('../../src/lib/mask-tokens')]).then(
    ([Sentry, { maskTokens, maskTokensDeep }]) =>
      Sentry.init({
        dsn: config.sentryDsn,
        environment: config.sentryEnvironment ?? 'released_production',
        tracesSampleRate: 0.2,
        integrations: [Sentry.browserTracingIntegration()],
        dataCollection: { userInfo: true },
        // The tokens of e-mailed links (/reset-password/<token>, …/verify/<token>) never reach Sentry.
        beforeBreadcrumb: (breadcrumb) => maskTokensDeep(breadcrumb),
        beforeSend: (event) => maskTokensDeep(event),
        beforeSendTransaction: (event) => {
          if (event.transaction) event.transaction = maskTokens(event.transaction);
          return maskTokensDeep(event);
        },
      }),
  );
}

const router = createRouter();

function syncTitle(state: typeof router.state) {
  document.title = documentTitle(state.matches.at(-1)?.route.handle as { title?: string } | undefined);
}

function TitleSync() {
  useEffect(() => {
    syncTitle(router.state);
    return router.subscribe(syncTitle);
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
