import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { db, jsonb, now } from '../../src/db/kysely.ts';
import { SaleStatus } from '../../src/modules/sales/index.ts';
import { axeViolations, launchBrowser } from '../support/browser.ts';
import { aLicense, aMember, anAdmin, aSale } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { startTestServer } from '../support/server.ts';
import { enrolAdmin, signInWithTwoFactor } from '../support/two-factor-browser.ts';

/**
 * 運用担当 and 閲覧のみ walk every admin screen: each control is there only when the role may call its
 * API (http/access.ts), hidden otherwise (not disabled), and every screen stays axe clean.
 */
let app: Awaited<ReturnType<typeof startTestServer>>;
let browser: Browser;
const staff = {
  operator: { email: 'unyo@example.jp', password: 'kumo-umi-sora-42' },
  viewer: { email: 'etsuran@example.jp', password: 'yama-kawa-mori-17' },
};
const ids = { sale: 0, license: 0, buyer: '' };

async function plantRecords() {
  const orm = app.runtime.deps.orm;
  const typed = db(orm.em.fork());
  ids.license = await aLicense(orm, { name: 'BLS 講習' });
  const buyer = await aMember(orm, { email: 'tanaka@example.jp', lastName: '田中', firstName: '花子' });
  ids.buyer = buyer.id;
  const paid = { userId: buyer.id, lastName: '田中', firstName: '花子', email: buyer.email };
  ids.sale = await aSale(orm, ids.license, { ...paid, status: SaleStatus.InProgress, stripePaymentIntentId: 'pi_test_roles' });
  const run = randomUUID();
  await typed
    .insertInto('reconciliation_runs')
    .values({ id: run, trigger: 'manual', days: 7, state: 'done', findings: 1, notified: 'findings', created_at: now() })
    .execute();
  await typed
    .insertInto('payment_findings')
    .values({ id: randomUUID(), run_id: run, kind: 'paid_without_sale', detail: '売上がありません。', created_at: now() })
    .execute();
  const session = { id: 'cs_test_roles', object: 'checkout.session', amount_total: 11000, currency: 'jpy', metadata: {} };
  await typed
    .insertInto('stripe_events')
    .values({
      id: 'evt_test_roles',
      type: 'checkout.session.completed',
      payload: jsonb({ id: 'evt_test_roles', type: 'checkout.session.completed', data: { object: session } }),
      stripe_session_id: 'cs_test_roles',
      received_at: now(),
      attempts: 3,
      failed_at: now(),
      last_error: 'Error: Connection terminated unexpectedly',
    })
    .execute();
  await typed
    .insertInto('mail_deliveries')
    .values({
      id: randomUUID(),
      key: 'roles:receipt',
      template: 'receipt',
      user_id: null,
      recipient: 'refused@example.jp',
      subject: 'ご購入ありがとうございます',
      status: 'failed',
      permanent: true,
      attempts: 1,
      error: '550 5.1.1 mailbox unavailable',
      failed_at: now(),
      created_at: now(),
    })
    .execute();
  const exported = { requested_by: 'x', requested_by_email: 'admin@example.jp', filters: jsonb({}), created_at: now() };
  await typed
    .insertInto('exports')
    .values([
      { ...exported, id: randomUUID(), state: 'failed', error: 'CSVを作成できませんでした。' },
      { ...exported, id: randomUUID(), state: 'done', license_name: 'BLS 講習', row_count: 1, total_rows: 1 },
    ])
    .execute();
  await typed
    .insertInto('announcements')
    .values({ id: randomUUID(), subject: '新しい講習のご案内', body: '本文', state: 'sending', created_at: now() })
    .execute();
}

beforeAll(async () => {
  app = await startTestServer();
  const admin = await anAdmin(app.runtime.deps.orm);
  const adminClient = new TestClient(app.app, '10.34.0.1');
  await adminClient.login(admin.email, admin.password);
  for (const [role, account] of Object.entries(staff)) {
    const firstName = role === 'operator' ? '運用' : '閲覧';
    const member = await aMember(app.runtime.deps.orm, { ...account, lastName: '職員', firstName });
    expect((await adminClient.put(`/api/users/${member.id}/role`, { role })).status).toBe(200);
    await enrolAdmin(app.app, account);
  }
  await plantRecords();
  browser = await launchBrowser();
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

type Control = [role: 'button' | 'link' | 'checkbox' | 'cell' | 'textbox', name: string | RegExp];

/** A screen: where, what shows it has loaded, and which controls a role finds (present) or not (absent). */
interface Screen {
  path: () => string;
  ready: string | RegExp;
  present: Control[];
  absent: Control[];
}

const find = (page: Page, [role, name]: Control) => page.getByRole(role, { name, exact: typeof name === 'string' });

/** Each screen once its records show: the controls the role may use appear, the others are not in the page at all. */
async function walk(page: Page, screens: Record<string, Screen>) {
  for (const [title, screen] of Object.entries(screens)) {
    await page.goto(`${app.baseUrl}${screen.path()}`);
    await page.getByText(screen.ready).filter({ visible: true }).first().waitFor();
    for (const control of screen.present) {
      await find(page, control)
        .filter({ visible: true })
        .first()
        .waitFor()
        .catch(() => expect.fail(`${title}: no ${control[0]} 「${control[1]}」`));
    }
    for (const control of screen.absent) expect(await find(page, control).count(), `${title}: ${control[1]}`).toBe(0);
    expect(await axeViolations(page), title).toEqual([]);
  }
}

/** Screens every staff role reads alike: the member pages and licences are for administrators to change. */
const readOnlyForStaff: Record<string, Screen> = {
  members: {
    path: () => '/admin/users',
    ready: '田中 花子',
    present: [['link', '田中 花子']],
    absent: [['button', 'CSVをダウンロード']],
  },
  'member detail': {
    path: () => `/admin/users/${ids.buyer}`,
    ready: '購入履歴',
    present: [['link', '一覧へ戻る']],
    absent: [
      ['link', '編集する'],
      ['link', 'パスワードを変更する'],
      ['link', '削除する'],
      ['button', '役割を変更する'],
      ['button', 'メモを残す'],
    ],
  },
  licences: {
    path: () => '/admin/licenses',
    ready: 'BLS 講習',
    present: [['link', 'BLS 講習']],
    absent: [
      ['link', '新規登録'],
      ['button', /を非公開にする$/],
      ['button', /を上へ/],
    ],
  },
  'licence detail': {
    path: () => `/admin/licenses/${ids.license}`,
    ready: 'このライセンスの売上を見る',
    present: [['link', 'このライセンスの売上を見る']],
    absent: [
      ['link', '編集する'],
      ['button', '削除する'],
    ],
  },
  announcements: {
    path: () => '/admin/announcements',
    ready: '新しい講習のご案内',
    present: [],
    absent: [
      ['button', '配信する'],
      ['button', '中止する'],
      ['textbox', '件名'],
    ],
  },
  audit: {
    path: () => '/admin/audit',
    ready: '役割の変更',
    present: [['link', /^職員 (運用|閲覧)（/]],
    absent: [['link', /^CSVをダウンロード/]],
  },
};

it('運用担当 (operator) runs sales, payments, mails and exports, and sees no member, role or licence change', async () => {
  const page = await browser.newPage();
  await signInWithTwoFactor(page, app.baseUrl, staff.operator, '**/admin');
  await walk(page, {
    menu: {
      path: () => '/admin',
      ready: '対応が必要なこと',
      present: [
        ['button', /^確認済みにする/],
        ['link', 'ユーザー一覧'],
        ['link', 'お知らせ配信'],
      ],
      absent: [],
    },
    'sales list': {
      path: () => '/admin/licenses/issue',
      ready: '研修管理システム用CSV',
      present: [
        ['checkbox', '田中 花子さんの売上を選択'],
        ['button', '田中 花子さんの売上を差し戻す'],
        ['button', 'CSVを作成する'],
        ['button', '再実行'],
        ['link', /\.csv$/],
      ],
      absent: [],
    },
    'order detail': {
      path: () => `/admin/sales/${ids.sale}`,
      ready: '状態の履歴',
      present: [
        ['button', '返金する'],
        ['button', 'メモを残す'],
        ['button', '購入メールを再送する'],
      ],
      absent: [['button', '控えをメールで送る']],
    },
    'sales summary': {
      path: () => '/admin/sales/summary',
      ready: 'CSVのダウンロード',
      present: [['link', /^受注CSVをダウンロード/]],
      absent: [],
    },
    payments: {
      path: () => '/admin/payments',
      ready: '売上がありません。',
      present: [
        ['button', '今すぐ照合'],
        ['button', /を再実行$/],
        ['button', /を確認済みにする$/],
      ],
      absent: [],
    },
    mails: {
      path: () => '/admin/mails',
      ready: 'refused@example.jp',
      present: [['button', /を再送信$/]],
      absent: [],
    },
    ...readOnlyForStaff,
  });
  await page.close();
});

it('閲覧のみ (viewer) reads every admin screen with no button it may not use', async () => {
  const page = await browser.newPage({ viewport: { width: 375, height: 800 } });
  await signInWithTwoFactor(page, app.baseUrl, staff.viewer, '**/admin');
  await walk(page, {
    menu: {
      path: () => '/admin',
      ready: '対応が必要なこと',
      present: [
        ['link', '照合結果を見る'],
        ['link', 'お知らせ配信'],
      ],
      absent: [['button', /^確認済みにする/]],
    },
    'sales list': {
      path: () => '/admin/licenses/issue',
      ready: 'CSVを作成できませんでした。',
      present: [
        ['link', '田中 花子'],
        ['cell', /\.csv$/],
      ],
      absent: [
        ['checkbox', '田中 花子さんの売上を選択'],
        ['button', '田中 花子さんの売上を差し戻す'],
        ['button', /^検索結果の/],
        ['button', 'CSVを作成する'],
        ['button', '再実行'],
        ['button', '登録済みにする'],
        ['link', /\.csv$/],
      ],
    },
    'order detail': {
      path: () => `/admin/sales/${ids.sale}`,
      ready: '状態の履歴',
      present: [['link', /さんのユーザー詳細$/]],
      absent: [
        ['button', '返金する'],
        ['button', 'メモを残す'],
        ['textbox', 'メモを追加'],
        ['button', '控えをメールで送る'],
        ['button', '購入メールを再送する'],
      ],
    },
    'sales summary': {
      path: () => '/admin/sales/summary',
      ready: 'CSVのダウンロード',
      present: [['link', /^CSVをダウンロード/]],
      absent: [['link', /^受注CSVをダウンロード/]],
    },
    payments: {
      path: () => '/admin/payments',
      ready: '売上がありません。',
      present: [['cell', /Connection terminated unexpectedly/]],
      absent: [
        ['button', '今すぐ照合'],
        ['button', /を再実行$/],
        ['button', /確認済みにする$/],
      ],
    },
    mails: {
      path: () => '/admin/mails',
      ready: 'refused@example.jp',
      present: [],
      absent: [['button', /を再送信$/]],
    },
    ...readOnlyForStaff,
  });
  await page.close();
});
