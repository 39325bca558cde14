import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { haproxyConfigFromDeploy } from '../support/haproxy.ts';

const ROOT = resolve(import.meta.dirname, '../..');

it('deploy/ passes its own tools: promtool check config|rules, promtool test rules, haproxy -c, pgbouncer, the units (scripts/check-deploy.sh)', async () => {
  const { stdout } = await promisify(execFile)(resolve(ROOT, 'scripts/check-deploy.sh'), { cwd: ROOT, timeout: 60_000 });
  expect(stdout).toContain('check-deploy: ok');
}, 60_000);

it('every alert has a runbook page, and every page in docs/runbooks/ named like an alert is one', () => {
  const rules = readFileSync(resolve(ROOT, 'deploy/prometheus/alerts.yml'), 'utf8');
  const alerts = [...rules.matchAll(/^\s*- alert: (\w+)$/gm)].map((m) => m[1] as string);
  expect(alerts.length).toBeGreaterThan(10);
  const pages = readdirSync(resolve(ROOT, 'docs/runbooks')).filter((name) => /^Shop\w+\.md$/.test(name));
  expect(pages.map((name) => name.replace(/\.md$/, '')).sort()).toEqual([...alerts].sort());
  for (const alert of alerts) expect(rules).toContain(`/docs/runbooks/${alert}.md`);
});

it("the test's HAProxy is deploy/haproxy.cfg with only addresses moved to loopback", () => {
  const source = readFileSync(resolve(ROOT, 'deploy/haproxy.cfg'), 'utf8').split('\n');
  const adapted = haproxyConfigFromDeploy(
    [
      { name: 'web1', port: 4001 },
      { name: 'web2', port: 4002 },
    ],
    { https: 4443, http: 4080, stats: 4405 },
  ).split('\n');
  const changed = adapted.filter((line) => !source.includes(line));
  expect(changed).toEqual([
    '  bind 127.0.0.1:4080',
    expect.stringMatching(/^ {2}bind 127\.0\.0\.1:4443 ssl crt "\$\{SHOP_TLS_CERT\}"/),
    '  server web1 127.0.0.1:4001',
    '  server web2 127.0.0.1:4002',
    '  bind 127.0.0.1:4405',
  ]);
  expect(source.filter((line) => !adapted.includes(line)).map((line) => line.trim().split(' ')[0])).toEqual([
    'bind',
    'bind',
    'server',
    'server',
    'bind',
  ]);
});
