/** A copy of `params` with `changes` applied; a change to an empty string removes that parameter. */
export function withParams(params: URLSearchParams, changes: Record<string, string>): URLSearchParams {
  const next = new URLSearchParams(params);
  for (const [key, value] of Object.entries(changes)) {
    if (value === '') next.delete(key);
    else next.set(key, value);
  }
  return next;
}
