import { describe, expect, it } from 'vitest';
import { EnvError, loadEnv } from '../../src/config/env.ts';

describe('environment', () => {
  it('applies the defaults of SPEC §2', () => {
    const env = loadEnv({});
    expect(env.port).toBe(3000);
    expect(env.appUrl).toBe('http://localhost:3000');
    expect(env.databaseUrl).toBeUndefined();
    expect(env.redisUrl).toBeUndefined();
    expect(env.smtpUrl).toBeUndefined();
    expect(env.sentry).toEqual({ dsn: undefined, environment: 'released_production' });
    expect(env.dataDir).toMatch(/var$/);
    expect(env.nodeEnv).toBe('development');
    expect(env.exportGroupName.length).toBeGreaterThan(0);
  });

  it('derives APP_URL from PORT and strips a trailing slash', () => {
    expect(loadEnv({ PORT: '8080' }).appUrl).toBe('http://localhost:8080');
    expect(loadEnv({ APP_URL: 'https://shop.example.jp/' }).appUrl).toBe('https://shop.example.jp');
  });

  it('keeps the in-process caches on unless SHOP_CACHES=off (diagnostics)', () => {
    expect(loadEnv({}).caches).toBe(true);
    expect(loadEnv({ SHOP_CACHES: 'on' }).caches).toBe(true);
    expect(loadEnv({ SHOP_CACHES: 'off' }).caches).toBe(false);
    expect(() => loadEnv({ SHOP_CACHES: 'no' })).toThrow(/SHOP_CACHES/);
  });

  it('reads ADMIN_ALLOWED_NETWORKS as IPv4 and IPv6 CIDRs, refusing a bad one by name', () => {
    expect(loadEnv({}).adminAllowedNetworks).toBeUndefined();
    expect(loadEnv({ ADMIN_ALLOWED_NETWORKS: '192.0.2.0/24, 2001:db8::/32,10.0.0.1' }).adminAllowedNetworks).toEqual([
      '192.0.2.0/24',
      '2001:db8::/32',
      '10.0.0.1',
    ]);
    for (const bad of ['192.0.2.0/33', '2001:db8::/129', 'office', '192.0.2.0/24,', '10.0.0.0/8/8']) {
      expect(() => loadEnv({ ADMIN_ALLOWED_NETWORKS: bad }), bad).toThrow(/ADMIN_ALLOWED_NETWORKS/);
    }
  });

  it('treats blank variables as unset', () => {
    expect(loadEnv({ DATABASE_URL: '  ', SMTP_URL: '' }).databaseUrl).toBeUndefined();
  });

  it('names every bad variable at once', () => {
    try {
      loadEnv({
        PORT: 'eighty',
        DATABASE_URL: 'mysql://x',
        REDIS_URL: 'nope',
        NODE_ENV: 'staging',
        STRIPE_SECRET_KEY: 'pk_live_x',
      });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(EnvError);
      const problems = (error as EnvError).problems.join('\n');
      for (const key of ['PORT', 'DATABASE_URL', 'REDIS_URL', 'NODE_ENV', 'STRIPE_SECRET_KEY']) expect(problems).toContain(key);
      expect((error as EnvError).message).toContain('環境変数');
    }
  });

  it('refuses production without the required variables', () => {
    try {
      loadEnv({ NODE_ENV: 'production' });
      expect.unreachable();
    } catch (error) {
      const problems = (error as EnvError).problems.join('\n');
      for (const key of ['DATABASE_URL', 'AUTH_SECRET', 'SMTP_URL', 'STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET']) {
        expect(problems).toContain(key);
      }
    }
  });

  it('refuses production with an http:// APP_URL other than localhost, naming APP_URL and why', () => {
    const production = {
      NODE_ENV: 'production',
      DATABASE_URL: 'postgres://db/shop',
      AUTH_SECRET: 'x'.repeat(40),
      SMTP_URL: 'smtp://mail:25',
      STRIPE_SECRET_KEY: 'sk_live_abc',
      STRIPE_WEBHOOK_SECRET: 'whsec_abc',
    };
    try {
      loadEnv({ ...production, APP_URL: 'http://shop.example.jp' });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(EnvError);
      const problems = (error as EnvError).problems;
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(/^APP_URL: /);
      expect(problems[0]).toContain('https://');
      expect(problems[0]).toContain('Secure');
    }
    expect(loadEnv({ ...production, APP_URL: 'https://shop.example.jp' }).appUrl).toBe('https://shop.example.jp');
    for (const local of ['http://localhost:3000', 'http://127.0.0.1:8080', 'http://[::1]:3000']) {
      expect(loadEnv({ ...production, APP_URL: local }).appUrl).toBe(local);
    }
    // Outside production, http:// anywhere is fine (a development machine on the LAN).
    expect(loadEnv({ APP_URL: 'http://shop.lan:3000' }).appUrl).toBe('http://shop.lan:3000');
  });

  it('accepts a complete production environment', () => {
    const env = loadEnv({
      NODE_ENV: 'production',
      DATABASE_URL: 'postgres://db/shop',
      AUTH_SECRET: 'x'.repeat(40),
      SMTP_URL: 'smtp://mail:25',
      STRIPE_SECRET_KEY: 'sk_live_abc',
      STRIPE_WEBHOOK_SECRET: 'whsec_abc',
    });
    expect(env.isProduction).toBe(true);
  });
});
