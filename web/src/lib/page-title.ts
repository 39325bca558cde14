import { useEffect, useSyncExternalStore } from 'react';

/**
 * A page whose title is known only once its data is here (a licence's name): it replaces the route's
 * title in the browser tab and in the route announcement until the next page.
 */
let current: { path: string; title: string } | null = null;
const listeners = new Set<() => void>();

const emit = () => {
  for (const listener of listeners) listener();
};

export function pageTitleFor(path: string): string | null {
  return current && current.path === path ? current.title : null;
}

export function subscribePageTitle(listener: () => void) {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

export function usePageTitleOverride(path: string): string | null {
  return useSyncExternalStore(subscribePageTitle, () => pageTitleFor(path));
}

/** Sets the page's own title while it is shown (`null`: the route's title). */
export function usePageTitle(title: string | null | undefined) {
  useEffect(() => {
    if (!title) return;
    const path = window.location.pathname;
    current = { path, title };
    emit();
    return () => {
      if (current?.path === path && current.title === title) current = null;
      emit();
    };
  }, [title]);
}
