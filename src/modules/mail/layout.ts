import { site } from '../../site-settings.ts';

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch] ?? ch);

export interface MailContent {
  subject: string;
  greeting: string;
  paragraphs: string[];
  action?: { label: string; url: string };
  notes?: string[];
}

/**
 * The HTML part shows the action as a button, the plain-text part only as its URL below the text: a
 * sentence written for the button (「下のボタンから」) names the URL in plain text (「以下の URL から」).
 */
const forPlainText = (paragraph: string) => paragraph.replaceAll('下のボタンから', '以下の URL から');

/** Builds the text and HTML bodies of a Japanese e-mail with the shop's signature. */
export function renderMail(content: MailContent): { subject: string; text: string; html: string } {
  const subject = `【${site.shopName}】${content.subject}`;
  const signature = [`${site.companyName}`, `${site.address}`, `${site.contact}`];
  const text = [
    content.greeting,
    '',
    ...content.paragraphs.flatMap((p) => [forPlainText(p), '']),
    ...(content.action ? [`${content.action.label}：`, content.action.url, ''] : []),
    ...(content.notes ?? []).map((n) => `※ ${n}`),
    '',
    '――――――――――――――――',
    ...signature,
  ].join('\n');
  const html = `<!doctype html><html lang="ja"><body style="font-family:sans-serif;line-height:1.7;color:#222">
<p>${escapeHtml(content.greeting)}</p>
${content.paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('\n')}
${content.action ? `<p><a href="${escapeHtml(content.action.url)}" style="display:inline-block;padding:10px 20px;background:#0b5394;color:#fff;text-decoration:none;border-radius:4px">${escapeHtml(content.action.label)}</a></p><p style="font-size:12px;color:#555">ボタンが開けない場合は次のURLをブラウザに貼り付けてください：<br>${escapeHtml(content.action.url)}</p>` : ''}
${(content.notes ?? []).map((n) => `<p style="font-size:12px;color:#555">※ ${escapeHtml(n)}</p>`).join('\n')}
<hr><p style="font-size:12px;color:#555">${signature.map(escapeHtml).join('<br>')}</p>
</body></html>`;
  return { subject, text, html };
}
