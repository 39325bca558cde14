import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { HonoAdapter } from '@bull-board/hono';
import { serveStatic } from '@hono/node-server/serve-static';
import type { Hono } from 'hono';
import { jobLabel, queueLabel } from '../events/labels.ts';
import type { Queues } from '../events/queues.ts';

/** The way back to the admin menu, in bull-board's own header menu (uiConfig.miscLinks), besides the header's link. */
const BACK_TO_ADMIN = { text: '管理メニューへ戻る', url: '/admin' } as const;
/** The figures the metrics give (oldest outbox event, failed mail, payments inbox), from the database. */
const TO_OPERATIONS = { text: '運用状況（滞りの件数）', url: '/admin/operations' } as const;

/**
 * bull-board's small grey and status-coloured texts made readable: a contrast of at least 4.5:1
 * (WCAG AA) on its cards, sidebar and tabs, in the light and the dark theme (uiConfig.theme tokens).
 */
const READABLE_THEME = {
  light: {
    'muted-foreground': '#4f5a64',
    destructive: '#b3261e',
    'sidebar-state-selected-foreground': '#0a5a51',
    'status-failed': '#c62828',
    'status-completed': '#15803d',
    'status-waiting': '#b45309',
    'status-waiting-children': '#c2410c',
    'status-prioritized': '#a21caf',
  },
  dark: {
    'muted-foreground': '#a9b3c0',
    destructive: '#f2857e',
    'status-failed': '#f08080',
    'status-completed': '#5fc482',
    'status-prioritized': '#d68ee0',
    'status-active': '#7ea5e6',
    'status-delayed': '#a890e6',
  },
};

/**
 * bull-board over the shop's queues, read-only (docs/decisions/0017-queue-dashboard-read-only.md), its
 * routes relative to `basePath`. Imported by queue-dashboard.ts on the dashboard's first request.
 */
export function createQueueBoard(queues: Queues, basePath: string, title: string): Hono {
  const adapter = new HonoAdapter(serveStatic);
  adapter.setBasePath(basePath);
  createBullBoard({
    queues: Object.values(queues).map((queue) => {
      const adapter = new BullMQAdapter(queue, { readOnlyMode: true, displayName: queueLabel(queue.name) });
      // A job's name is the event it carries: shown in the administrator's words (events/labels.ts).
      adapter.setFormatter('name', (job: { name?: string }) => jobLabel(job.name ?? ''));
      return adapter;
    }),
    serverAdapter: adapter,
    options: {
      uiConfig: {
        boardTitle: title,
        locale: { lng: 'ja-JP' },
        miscLinks: [BACK_TO_ADMIN, TO_OPERATIONS],
        hideDocsLink: true,
        theme: READABLE_THEME,
      },
    },
  });
  return adapter.registerPlugin();
}
