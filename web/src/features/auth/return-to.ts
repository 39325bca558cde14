const BASE = 'https://return-to.invalid';

/** A plain local path: one leading slash, no backslash, no control characters. */
function isLocalPath(text: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  return text.startsWith('/') && !text.startsWith('//') && !text.includes('\\') && !/[\u0000-\u001f\u007f]/.test(text);
}

/** `text` resolved as the browser would (dot-segments, `%2e%2e` included): still a path of this site? */
function resolvesLocally(text: string): URL | null {
  let url: URL;
  try {
    url = new URL(text, BASE);
  } catch {
    return null;
  }
  return url.origin === BASE && isLocalPath(url.pathname) ? url : null;
}

/**
 * Where sign-in may send a member back to: a path of this site only. Anything that could leave it —
 * `//evil.example`, `https://…`, `/\evil`, the same percent-encoded or with tabs and line breaks the
 * URL parser drops, and paths that only become `//host` once their dot-segments are resolved
 * (`/.//evil.example`, `/x/..//evil.example`, `/%2e%2e//evil.example`) — is refused (null), and so are
 * the sign-in pages themselves. Every decoding of the value is checked both as written and resolved,
 * and so is the path finally returned.
 */
export function safeNext(raw: string | null | undefined): string | null {
  if (!raw || raw.length > 2000) return null;
  let text = raw;
  // Each decoding of the value must still be a plain local path (catches %2F%2F and %5C, however often encoded).
  for (let i = 0; i < 4; i++) {
    if (!isLocalPath(text) || !resolvesLocally(text)) return null;
    let decoded: string;
    try {
      decoded = decodeURIComponent(text);
    } catch {
      break; // a stray % decodes no further
    }
    if (decoded === text) break;
    text = decoded;
  }
  if (!isLocalPath(text) || !resolvesLocally(text)) return null;
  const url = resolvesLocally(raw);
  if (!url) return null;
  if (/^\/(login|logout)(\/|$)/.test(url.pathname) || url.pathname.startsWith('/users/registration')) return null;
  const next = `${url.pathname}${url.search}${url.hash}`;
  // What is handed to the router must itself resolve to the same local path.
  return resolvesLocally(next)?.pathname === url.pathname ? next : null;
}

/** The sign-in page's address for a member on their way to `path` (a path of this site). */
export function loginFor(path: string): string {
  const next = safeNext(path);
  return next && next !== '/' ? `/login?next=${encodeURIComponent(next)}` : '/login';
}
