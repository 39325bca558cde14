import { useEffect, useRef, useState } from 'react';

/** How often a page showing a payment still awaited asks again (a webhook may settle it at any moment). */
export const PENDING_REFRESH_MS = 10_000;

/**
 * A polite live region, present from the first render so assistive technology is listening before it
 * speaks: it says so when a payment that was awaited while the page was open is settled (the webhook),
 * and stays silent when the page opened on a settled order.
 */
export function PaymentSettledNotice({ state, messages }: { state: string | undefined; messages: Record<string, string> }) {
  const previous = useRef<string | undefined>(undefined);
  const [text, setText] = useState('');
  useEffect(() => {
    if (previous.current === 'awaiting_payment' && state && state !== 'awaiting_payment') setText(messages[state] ?? '');
    previous.current = state;
  }, [state, messages]);
  return (
    <div aria-live="polite" aria-atomic="true" data-payment-settled="">
      {text ? <p className="notice">{text}</p> : null}
    </div>
  );
}
