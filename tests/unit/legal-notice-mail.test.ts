import { describe, expect, it } from 'vitest';
import { revisionChanges } from '../../src/legal-texts.ts';
import { composeLegalNotice, LEGAL_NOTICE_SUBJECT, legalNoticeBody } from '../../src/modules/announcements/index.ts';
import { site } from '../../src/site-settings.ts';

describe('the notice of a terms revision (decision 0049)', () => {
  const body = legalNoticeBody('https://shop.example.jp');
  const mail = composeLegalNotice({ subject: LEGAL_NOTICE_SUBJECT, body }, { lastName: '佐藤', firstName: '花子' });

  it('says every change the revision lists, when it takes effect in Japan time, and where to read it', () => {
    const { terms, privacy } = revisionChanges();
    for (const line of [...terms, ...privacy]) expect(body).toContain(`・${line}`);
    expect(body).toContain('施行日：2026年12月28日 00:00（日本時間）');
    for (const path of ['/terms', '/privacy', '/contact']) expect(body).toContain(`\nhttps://shop.example.jp${path}`);
  });

  it('is no advertisement: no unsubscribe, the sender named, links clickable in HTML', () => {
    expect(mail.subject).toBe(`【${site.shopName}】利用規約・プライバシーポリシー改定のお知らせ`);
    expect(mail.headers).toEqual({});
    expect(mail.text.startsWith('佐藤 花子 様\n')).toBe(true);
    expect(`${mail.text}${mail.html}`).not.toContain('unsubscribe');
    for (const fact of [site.companyName, site.address, site.contact]) expect(mail.text).toContain(fact);
    expect(mail.html).toContain('<a href="https://shop.example.jp/privacy">https://shop.example.jp/privacy</a>');
    expect(mail.html).not.toMatch(/<a href="[^"]*"[^>]*>[^<]*<a/);
  });
});
