/** Runtime settings the server writes into index.html (`<meta name="app-config">`). */
export interface AppConfig {
  sentryDsn?: string;
  sentryEnvironment?: string;
  checkoutOrigin?: string;
}

export function readConfig(): AppConfig {
  const meta = document.querySelector<HTMLMetaElement>('meta[name="app-config"]');
  if (!meta?.content) return {};
  try {
    return JSON.parse(meta.content) as AppConfig;
  } catch {
    return {};
  }
}
