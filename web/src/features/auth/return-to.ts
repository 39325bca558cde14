/**
 * Where sign-in may send a member back to: a path of this site only. Anything that could leave it —
 * `//evil.example`, `https://…`, `/\evil`, the same percent-encoded or with tabs and line breaks the
 * URL parser drops — is refused (null), and so are the sign-in pages themselves.
 */
export function safeNext(raw: string | null | undefined): string | null {
  if (!raw || raw.length > 2000) return null;
  let text = raw;
  // Each decoding of the value must still be a plain local path (catches %2F%2F and %5C, however often encoded).
  for (let i = 0; i < 4; i++) {
    if (!text.startsWith('/') || text.startsWith('//') || text.includes('\\')) return null;
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
    if (/[\u0000-\u001f\u007f]/.test(text)) return null;
    let decoded: string;
    try {
      decoded = decodeURIComponent(text);
    } catch {
      break; // a stray % decodes no further
    }
    if (decoded === text) break;
    text = decoded;
  }
  const base = 'https://return-to.invalid';
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    return null;
  }
  if (url.origin !== base) return null;
  if (/^\/(login|logout)(\/|$)/.test(url.pathname) || url.pathname.startsWith('/users/registration')) return null;
  return `${url.pathname}${url.search}${url.hash}`;
}

/** The sign-in page's address for a member on their way to `path` (a path of this site). */
export function loginFor(path: string): string {
  const next = safeNext(path);
  return next && next !== '/' ? `/login?next=${encodeURIComponent(next)}` : '/login';
}
