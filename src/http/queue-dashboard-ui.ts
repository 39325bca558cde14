/** What bull-board lacks and none of its options give; a script and style sheet from our origin (the CSP allows no inline script). */

import { eventLabels, queueLabels } from '../events/labels.ts';

const CODE_NAMES: Record<string, string> = { ...queueLabels, ...eventLabels };

const ICON_NAMES: Record<string, string> = {
  'lucide-maximize': '全画面表示',
  'lucide-minimize': '全画面表示を終了',
  'lucide-settings': '表示の設定',
  'lucide-circle-user': 'ほかの管理画面（管理メニュー・運用状況）',
  'lucide-copy': 'コピー',
  'lucide-check': 'コピーしました',
  'lucide-ellipsis-vertical': '並び順などの設定',
  'lucide-x': '閉じる',
  'lucide-chevron-down': '開く',
  'lucide-chevron-up': '閉じる',
  'lucide-chevron-left': '前へ',
  'lucide-chevron-right': '次へ',
  'lucide-refresh-cw': '最新の状態にする',
  'lucide-search': '検索',
  'lucide-info': '詳しい情報',
  'lucide-external-link': '別のタブで開く',
  'lucide-corner-up-left': '戻る',
  'lucide-crosshair': '開いたジョブを中央に表示',
  'lucide-plus': '拡大',
  'lucide-minus': '縮小',
  'lucide-arrow-up-down': '並べ替え',
  'lucide-arrow-up': '昇順',
  'lucide-arrow-down': '降順',
  'lucide-chart-no-axes-gantt': 'ジョブの流れ',
  'lucide-clock': '時刻',
  'lucide-calendar-clock': '予定',
  'lucide-gauge': 'メトリクス',
  'lucide-users': 'ワーカー',
  'lucide-database': 'Redis の状態',
};

export const QUEUE_DASHBOARD_SCRIPT = `(() => {
  'use strict';
  const ICON_NAMES = ${JSON.stringify(ICON_NAMES)};
  const CODE_NAMES = ${JSON.stringify(CODE_NAMES)};
  const BACK = { text: '管理メニューへ戻る', url: '/admin' };

  const named = (el) =>
    Boolean(
      (el.getAttribute('aria-label') || '').trim() ||
        el.getAttribute('aria-labelledby') ||
        // innerText, not textContent: the Redis logo's <style> is text but no name.
        (el.innerText || '').trim() ||
        (el.getAttribute('title') || '').trim(),
    );

  function iconName(button) {
    for (const svg of button.querySelectorAll('svg')) {
      for (const cls of svg.classList) if (ICON_NAMES[cls]) return ICON_NAMES[cls];
      // The Redis logo: bull-board's own svg, not a lucide icon.
      if (button.innerHTML.includes('rds-b1')) return 'Redis の状態';
    }
    return undefined;
  }

  function fix() {
    for (const button of document.querySelectorAll('button, [role="button"]')) {
      if (named(button)) continue;
      const name = iconName(button);
      if (name) button.setAttribute('aria-label', name);
    }
    // A select box takes no name from its content: the schedulers' queue filter says what it picks.
    for (const box of document.querySelectorAll('[role="combobox"]:not([aria-label]):not([aria-labelledby])')) {
      box.setAttribute('aria-label', '表示するキュー');
    }
    // Pictures inside a named control, or decoration: hidden from assistive technology.
    for (const svg of document.querySelectorAll('svg[role="img"]')) {
      if (svg.getAttribute('aria-label') || svg.querySelector('title')) continue;
      svg.setAttribute('aria-hidden', 'true');
      svg.removeAttribute('role');
    }
    // A list item outside a list (bull-board's menus): a plain group member, not a dangling <li>.
    for (const li of document.querySelectorAll('li')) {
      const parent = li.parentElement;
      if (!parent) continue;
      const role = parent.getAttribute('role');
      if (['UL', 'OL', 'MENU'].includes(parent.tagName) && (!role || role === 'list')) continue;
      if (role === 'list' || li.getAttribute('role')) continue;
      li.setAttribute('role', 'none');
    }
    // Code names (mail, SalePaid) in Japanese, but never inside a job's data, options or logs.
    const walker = document.createTreeWalker(document.getElementById('root') || document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const label = CODE_NAMES[node.data.trim()];
      if (!label || node.parentElement?.closest('[role="tabpanel"], pre, code, input, textarea')) continue;
      node.data = node.data.replace(node.data.trim(), label);
    }
    // A link named otherwise than it reads (「スケジューラー（1）」 on 「スケジューラー 1」): its visible words
    // are its name, as speech-input users say them.
    for (const el of document.querySelectorAll('a[aria-label]:not([role])')) {
      if ((el.innerText || '').trim()) el.removeAttribute('aria-label');
    }
    // axe's best practices: a logo's alt repeating its link's words, one h1, headings one level at a time,
    // no empty column header, popups inside a landmark.
    for (const img of document.querySelectorAll('img[alt]')) {
      const alt = img.getAttribute('alt').trim();
      const around = img.closest('a, button');
      if (alt && around && (around.innerText || '').includes(alt)) img.setAttribute('alt', '');
    }
    const header = document.querySelector('header');
    if (header && !header.querySelector('[data-shop-title]')) {
      const h1 = document.createElement('h1');
      h1.setAttribute('data-shop-title', '');
      h1.className = 'shop-visually-hidden';
      h1.textContent = 'ジョブキュー';
      header.prepend(h1);
    }
    let previous = 0;
    for (const heading of document.querySelectorAll('h1, h2, h3, h4, h5, h6')) {
      if (!heading.hasAttribute('data-shop-level')) heading.setAttribute('data-shop-level', heading.tagName.slice(1));
      const own = Number(heading.getAttribute('data-shop-level'));
      const level = Math.min(own, previous + 1);
      if (level === own) heading.removeAttribute('aria-level');
      else if (heading.getAttribute('aria-level') !== String(level)) heading.setAttribute('aria-level', String(level));
      previous = level;
    }
    for (const th of document.querySelectorAll('th:not([role])')) {
      if (!(th.innerText || '').trim() && !th.getAttribute('aria-label')) th.setAttribute('role', 'cell');
    }
    for (const el of document.body.children) {
      if (el.id === 'root' || ['SCRIPT', 'STYLE'].includes(el.tagName) || el.getAttribute('role')) continue;
      if (!(el.innerText || '').trim()) continue;
      el.setAttribute('role', 'region');
      el.setAttribute('aria-label', 'ポップアップ');
    }
    // The way back to the back office: a labelled link at the start of the header's actions.
    const actions = document.querySelector('header ul');
    if (actions && !actions.querySelector('[data-shop-back]')) {
      const li = document.createElement('li');
      li.setAttribute('data-shop-back', '');
      const a = document.createElement('a');
      a.href = BACK.url;
      a.className = 'shop-back';
      a.textContent = BACK.text;
      li.append(a);
      actions.prepend(li);
    }
  }

  let queued = false;
  const schedule = () => {
    if (queued) return;
    queued = true;
    queueMicrotask(() => {
      queued = false;
      fix();
    });
  };
  const start = () => {
    fix();
    new MutationObserver(schedule).observe(document.body, {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ['class'],
      characterData: true,
    });
  };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
`;

export const QUEUE_DASHBOARD_STYLE = `
header ul > li[data-shop-back] { display: flex; align-items: center; margin-right: 0.75rem; }
a.shop-back {
  display: inline-flex; align-items: center; gap: 0.25rem; min-height: 2.25rem; padding: 0 0.75rem;
  border: 1px solid var(--border); border-radius: var(--radius, 6px);
  color: var(--foreground); font-weight: 600; text-decoration: none; white-space: nowrap;
}
a.shop-back::before { content: '←' / ''; }
a.shop-back:hover { text-decoration: underline; }
a.shop-back:focus-visible { outline: 3px solid var(--ring, #2563eb); outline-offset: 2px; }
.shop-visually-hidden {
  position: absolute !important; width: 1px; height: 1px; padding: 0; margin: -1px;
  overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0;
}
[class*="nullValue"] { color: var(--muted-foreground) !important; }
/* bull-board hides the word on narrow screens, leaving a bare number as the link's text. */
[class*="schedulersLabel"] { display: inline !important; }
`;
