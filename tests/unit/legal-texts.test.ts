import { describe, expect, it } from 'vitest';
import { japaneseDay, PPC_FOREIGN_SYSTEMS_URL, privacy, revision, revisionChanges, terms } from '../../src/legal-texts.ts';
import { EXPORT_HEADER } from '../../src/modules/sales/index.ts';
import { TRAINING_SYSTEM_DATA, trainingSystemDataText } from '../../src/site-settings.ts';

const article = (title: string) => terms.sections.find((s) => s.title.startsWith(title));
const section = (title: string) => privacy.sections.find((s) => s.title.includes(title));
const textOf = (s: { paragraphs: readonly string[] } | undefined) => s?.paragraphs.join('\n') ?? '';

describe('利用規約 and プライバシーポリシー (issue 35 item 4)', () => {
  it('name one list of what goes to the training system, in 第6条 and the privacy policy alike', () => {
    expect(article('第6条')?.body).toContain(trainingSystemDataText);
    expect(textOf(section('第三者提供'))).toContain(trainingSystemDataText);
    // Every column the export hands the training system is in the list (言語 and グループ are settings, not the member's).
    const columns: Record<string, string> = {
      メールアドレス: 'メールアドレス',
      姓: '氏名（姓・名）',
      名: '氏名（姓・名）',
      所属: '所属（区分・所属名）',
      所属名: '所属（区分・所属名）',
      ライセンス名: '購入したライセンス名',
      購入日時: '購入日時',
    };
    for (const header of EXPORT_HEADER.filter((h) => h !== '言語' && h !== 'グループ')) {
      expect(TRAINING_SYSTEM_DATA, header).toContain(columns[header]);
    }
  });

  it('has the articles a shop needs, with the court as a placeholder', () => {
    const titles = terms.sections.map((s) => s.title);
    for (const needed of ['禁止事項', '反社会的勢力の排除', '退会', '免責', '準拠法・合意管轄']) {
      expect(
        titles.some((t) => t.includes(needed)),
        needed,
      ).toBe(true);
    }
    expect(article('第7条')?.title).toBe('第7条（規約の変更）');
    expect(article('第8条')?.items?.length).toBeGreaterThanOrEqual(5);
    expect(article('第9条')?.body).toContain('暴力団');
    expect(article('第10条')?.body).toContain('領収書');
    expect(article('第12条')?.body).toMatch(/日本法を準拠法.*（仮）を第一審の専属的合意管轄裁判所/);
    // 第7条's rule: the revision and the day it takes effect, announced ahead.
    expect(terms.revisionNote).toContain(terms.effectiveAt);
  });

  it('says how to ask for disclosure: how, identity documents, fee, agents', () => {
    const request = textOf(section('開示'));
    expect(request).toMatch(/請求の方法：.*お問い合わせフォーム/);
    expect(request).toMatch(/本人確認書類：.*運転免許証/);
    expect(request).toMatch(/手数料：いただきません/);
    expect(request).toMatch(/代理人による請求：.*委任状/);
  });

  it('summarises the United States’ system for Stripe, with the regulator’s link, and knows the outside environment', () => {
    const foreign = section('外国にある第三者');
    expect(textOf(foreign)).toMatch(/アメリカ合衆国の個人情報保護制度：.*包括的な連邦法はありません/);
    expect(textOf(foreign)).toContain('連邦取引委員会');
    expect(foreign?.link?.to).toBe(PPC_FOREIGN_SYSTEMS_URL);
    expect(textOf(section('安全管理措置'))).toMatch(/外的環境の把握：.*アメリカ合衆国/);
  });

  it('names in its revision only articles and sections the texts have, and dates both pages by it (第7条)', () => {
    const changes = revisionChanges();
    expect(changes.terms).toHaveLength(revision.terms.length);
    expect(changes.terms[0]).toMatch(/^第6条（個人情報の取扱い）：.*購入日時/);
    expect(changes.terms.at(-1)).toMatch(/^第12条（準拠法・合意管轄）：/);
    expect(changes.privacy.some((line) => line.startsWith('7. 保有個人データの開示'))).toBe(true);
    for (const text of [terms, privacy]) {
      expect(text.revisedAt).toBe(japaneseDay(revision.revisedOn));
      expect(text.effectiveAt).toBe('2026年12月28日');
      expect(text.revisionNote).toContain(`${text.revisedAt}改定（${text.effectiveAt}施行）`);
    }
  });
});
