import { useEffect, useRef, useState } from 'react';
import { useLocation } from 'react-router';

/** How long a page that draws its heading after loading is waited for. */
const HEADING_WAIT_MS = 5000;

/**
 * Focus the page's h1 (made focusable with tabIndex -1), unless the new page has already put the
 * focus somewhere of its own inside the content (a field, a form's summary). Returns false while
 * there is no h1 yet.
 */
function focusHeading(before: Element | null): boolean {
  const main = document.getElementById('main');
  if (!main) return false;
  const active = document.activeElement;
  if (active && active !== before && active !== document.body && main.contains(active)) return true;
  const heading = main.querySelector<HTMLElement>('h1');
  if (!heading) return false;
  if (!heading.hasAttribute('tabindex')) heading.tabIndex = -1;
  heading.focus({ preventScroll: true });
  return true;
}

/**
 * Route changes, for people who cannot see the page change: on a new path (not a new query or hash)
 * the view starts at the top, focus moves to the page's h1, and a polite live region announces the
 * page's title (document.title is set from the same route metadata). The first page of a visit is
 * left to the browser.
 */
export function RouteAnnouncer({ title }: { title: string }) {
  const { pathname, hash } = useLocation();
  const [announcement, setAnnouncement] = useState('');
  const shown = useRef<string | null>(null);
  // Read when the path changes, not followed: a later change of hash or title is not a new page.
  const latest = useRef({ title, hash });
  latest.current = { title, hash };
  const movedAt = useRef(0);

  useEffect(() => {
    if (shown.current === null || shown.current === pathname) {
      shown.current = pathname;
      return;
    }
    shown.current = pathname;
    movedAt.current = Date.now();
    const before = document.activeElement;
    if (!latest.current.hash) window.scrollTo(0, 0);
    // Emptied first, so two pages of the same title (one licence, then another) are both announced.
    setAnnouncement('');
    const announce = window.setTimeout(() => setAnnouncement(latest.current.title), 100);
    let observer: MutationObserver | undefined;
    let giveUp: number | undefined;
    if (!focusHeading(before)) {
      const main = document.getElementById('main');
      if (main) {
        observer = new MutationObserver(() => {
          if (focusHeading(before)) observer?.disconnect();
        });
        observer.observe(main, { childList: true, subtree: true });
        giveUp = window.setTimeout(() => observer?.disconnect(), HEADING_WAIT_MS);
      }
    }
    return () => {
      window.clearTimeout(announce);
      window.clearTimeout(giveUp);
      observer?.disconnect();
    };
  }, [pathname]);

  // A page that learns its own title after loading (a licence's name) is announced again by it.
  useEffect(() => {
    if (movedAt.current > 0 && Date.now() - movedAt.current < HEADING_WAIT_MS) setAnnouncement(title);
  }, [title]);

  return (
    <div className="visually-hidden" aria-live="polite" aria-atomic="true" data-route-announcer="">
      {announcement}
    </div>
  );
}
