import { readConfig } from '../../lib/config';

const PAGE = /^cs_(test|live)_[A-Za-z0-9]+$/;
const TOKEN = /^[A-Za-z0-9_\-.~%=+]+$/;

/** The configured checkout origin (Stripe's, or the emulator's in development). */
const checkoutOrigin = () => readConfig().checkoutOrigin ?? 'https://checkout.stripe.com';

/** `https://checkout.stripe.com/c/pay/cs_…#token` → `/licenses/checkout/https/cs_…/token` (seed §2). */
export function checkoutRoute(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.origin !== checkoutOrigin()) return null;
  const page = parsed.pathname.split('/').pop() ?? '';
  const token = parsed.hash.replace(/^#/, '');
  if (!PAGE.test(page) || !TOKEN.test(token)) return null;
  return `/licenses/checkout/${parsed.protocol.replace(':', '')}/${page}/${token}`;
}

/**
 * The hosted payment page built from the route's parts — only ever on the configured origin, so the
 * route cannot be used as an open redirect.
 */
export function checkoutTarget(protocol: string, page: string, token: string): string | null {
  const origin = new URL(checkoutOrigin());
  if (`${protocol}:` !== origin.protocol || !PAGE.test(page) || !TOKEN.test(token)) return null;
  return `${origin.origin}/c/pay/${page}#${token}`;
}
