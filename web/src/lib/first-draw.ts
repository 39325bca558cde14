let drawn: () => void = () => undefined;

/** Settles once the first screen (or its error page) has been committed to the page. */
export const firstDraw = new Promise<void>((resolve) => {
  drawn = resolve;
});

/** Called from an effect of the layout and of the error page: the screen is on the page. */
export const markDrawn = () => drawn();
