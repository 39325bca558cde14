// A popstate means browser Back/Forward inside the app. Listening starts when the app starts
// (main.tsx imports this first), before the router listens, so screens loaded later (code-split
// routes) can still tell Back from a fresh visit.
let popped = false;
if (typeof window !== 'undefined') window.addEventListener('popstate', () => (popped = true));

/** Whether the browser's Back/Forward has moved within the app since the page was loaded. */
export const poppedSinceLoad = () => popped;
