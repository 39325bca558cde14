import { useEffect } from 'react';

/**
 * Gives every body cell of a `.table` its column's name (`data-label`), so that on a phone the
 * rows can be drawn as cards, each value under its name (styles.css), with no page of its own
 * having to change. Cells spanning several columns keep no name.
 */
function labelTableCells(root: ParentNode) {
  for (const table of root.querySelectorAll<HTMLTableElement>('table.table')) {
    const names = [...table.querySelectorAll('thead tr:last-child th')].map((th) => th.textContent?.trim() ?? '');
    if (names.length === 0) continue;
    for (const row of table.tBodies[0]?.rows ?? []) {
      let column = 0;
      for (const cell of row.cells) {
        const name = cell.colSpan === 1 ? (names[column] ?? '') : '';
        if (cell.dataset.label !== name) cell.dataset.label = name;
        column += cell.colSpan;
      }
    }
  }
}

/**
 * Keeps the names on the cells while the page below `selector` changes. The app's root by default, not
 * #main: <main> is drawn anew when the side menu comes or goes (管理メニュー → a screen).
 */
export function useTableLabels(selector = '.app') {
  useEffect(() => {
    const root = document.querySelector(selector);
    if (!root) return;
    let queued = false;
    const run = () => {
      queued = false;
      labelTableCells(root);
    };
    run();
    const observer = new MutationObserver(() => {
      if (queued) return;
      queued = true;
      requestAnimationFrame(run);
    });
    observer.observe(root, { childList: true, subtree: true, characterData: true });
    return () => observer.disconnect();
  }, [selector]);
}
