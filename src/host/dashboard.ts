import { Hono } from 'hono';
import * as v from 'valibot';
import type { AppEnv, AppModule } from '../http/context.ts';
import { permit } from '../http/guards.ts';
import { operation } from '../http/openapi.ts';
import { japanDay } from '../lib/japan-time.ts';
import { newMembers } from '../modules/accounts/index.ts';
import { checkoutDashboard } from '../modules/checkout/index.ts';
import { mailSummary } from '../modules/mail/index.ts';
import { salesDashboard } from '../modules/sales/index.ts';

const period = v.object({
  from: v.string(),
  to: v.string(),
  count: v.number(),
  amount: v.number(),
  refunded_count: v.number(),
  refunded_amount: v.number(),
  new_members: v.number(),
});

const dashboardDoc = operation('get', {
  summary: 'ダッシュボード（今日と今月の売上、対応待ちの件数、30日間の日別売上）',
  description:
    '日付は日本時間。売上・返金は売上集計（GET /api/sales/summary）、新規会員は会員一覧（created_from/created_to）、出力待ちは売上一覧（status=0）、お支払い待ちはコンビニ払いの一覧、送信失敗は送信に失敗したメール、照合の差異は未確認の照合と同じ数え方です。',
  tags: ['ダッシュボード'],
  access: 'admin',
  permission: 'sales:read',
  answers: {
    200: v.object({
      today: period,
      month: period,
      series: v.array(v.object({ date: v.string(), count: v.number(), amount: v.number() })),
      awaiting_export: v.number(),
      konbini_awaiting: v.number(),
      bank_transfer_awaiting: v.number(),
      failed_mails: v.number(),
      reconciliations_flagged: v.number(),
    }),
  },
});

/** GET /api/dashboard: each module gives its own figures through its index; composed here. */
export const dashboard = {
  name: 'dashboard',
  api: new Hono<AppEnv>().get('/dashboard', dashboardDoc, permit('sales:read'), async (c) => {
    const { orm } = c.var.deps;
    const now = new Date();
    const today = japanDay(now);
    const monthStart = `${today.slice(0, 8)}01`;
    const [sales, checkout, mails, membersToday, membersMonth] = await Promise.all([
      salesDashboard(orm, now),
      checkoutDashboard(orm),
      mailSummary(orm),
      newMembers(orm, today, today),
      newMembers(orm, monthStart, today),
    ]);
    return c.json({
      today: { ...sales.today, new_members: membersToday },
      month: { ...sales.month, new_members: membersMonth },
      series: sales.series,
      awaiting_export: sales.awaiting_export,
      ...checkout,
      // Bank transfers are not taken yet (SPEC §11): nothing can be waiting.
      bank_transfer_awaiting: 0,
      failed_mails: mails.summary.failed_for_good,
    });
  }),
  entities: [],
} satisfies AppModule;
