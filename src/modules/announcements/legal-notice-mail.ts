import { japaneseDay, privacy, revision, revisionChanges, terms } from '../../legal-texts.ts';
import { japanTime, parseJapanTime } from '../../lib/japan-time.ts';
import { site } from '../../site-settings.ts';
import { escapeHtml, greetingOf } from './compose.ts';

export const LEGAL_NOTICE_SUBJECT = '利用規約・プライバシーポリシー改定のお知らせ';

/** 2026年12月28日 00:00（日本時間）: the moment the revision takes effect, in Japan time. */
export const effectiveAtText = () => japanTime(parseJapanTime(`${revision.effectiveOn}T00:00`) as Date);

/**
 * The notice's text between the greeting and the footer, built from legal-texts.ts (what changed, when
 * it takes effect, where to read it). It is stored with the announcement: the record keeps what was sent.
 */
export function legalNoticeBody(appUrl: string): string {
  const changes = revisionChanges();
  const bullet = (line: string) => `・${line}`;
  return [
    `${site.shopName}をご利用いただき、ありがとうございます。`,
    `${site.companyName}は、${site.shopName}の${terms.title}および${privacy.title}を改定いたします。${terms.title}第7条（規約の変更）に基づき、ご登録のメールアドレスあてにお知らせします。`,
    '',
    `■ 改定日：${japaneseDay(revision.revisedOn)}`,
    `■ 施行日：${effectiveAtText()}`,
    `施行日の前日までは改定前の${terms.title}・${privacy.title}が、施行日からは改定後のものが適用されます。`,
    '',
    `■ ${terms.title}の主な変更点`,
    ...changes.terms.map(bullet),
    `改定後の${terms.title}：`,
    `${appUrl}/terms`,
    '',
    `■ ${privacy.title}の主な変更点`,
    ...changes.privacy.map(bullet),
    `改定後の${privacy.title}：`,
    `${appUrl}/privacy`,
    '',
    'ご不明な点は、お問い合わせフォームまたは下記の窓口までお問い合わせください。',
    `${appUrl}/contact`,
  ].join('\n');
}

const URL_LINE = /^https?:\/\/\S+$/;

/** A paragraph of the stored text as HTML: lines kept, a line that is a URL made a link. */
const htmlParagraph = (paragraph: string) =>
  `<p>${paragraph
    .split('\n')
    .map((line) => (URL_LINE.test(line) ? `<a href="${escapeHtml(line)}">${escapeHtml(line)}</a>` : escapeHtml(line)))
    .join('<br>')}</p>`;

/**
 * The notice as mailed: the member's name, the stored text, then why it comes whatever their choice and
 * who sends it. A notice under the contract, not advertising: no unsubscribe link, no List-Unsubscribe.
 */
export function composeLegalNotice(draft: { subject: string; body: string }, reader: { lastName: string; firstName: string }) {
  const greeting = greetingOf(reader);
  const why = `このメールは、${terms.title}第7条に基づく重要なお知らせとして、メール配信の設定（ご案内メールの受け取り）にかかわらず、会員の皆さまにお送りしています。`;
  const sender = [`送信者：${site.companyName}（${site.shopName}）`, site.address, site.contact];
  const text = [greeting, '', draft.body, '', '――――――――――――――――', why, '', ...sender].join('\n');
  const html = `<!doctype html><html lang="ja"><body style="font-family:sans-serif;line-height:1.7;color:#222">
<p>${escapeHtml(greeting)}</p>
${draft.body
  .split(/\n{2,}/)
  .map(htmlParagraph)
  .join('\n')}
<hr><p style="font-size:12px;color:#555">${escapeHtml(why)}</p>
<p style="font-size:12px;color:#555">${sender.map(escapeHtml).join('<br>')}</p>
</body></html>`;
  return { subject: `【${site.shopName}】${draft.subject}`, text, html, headers: {} as Record<string, string> };
}
