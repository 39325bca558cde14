import { site } from '../../site-settings.ts';

export interface AnnouncementDraft {
  subject: string;
  body: string;
  license: { id: number; name: string } | null;
}

export interface AnnouncementReader {
  lastName: string;
  firstName: string;
  token: string;
}

export const greetingOf = (reader: { lastName: string; firstName: string }) => `${reader.lastName} ${reader.firstName} 様`.trim();

export const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch] ?? ch);

/** The sender's address in MAIL_FROM (`"Shop" <a@b>` or `a@b`), for the mailto unsubscribe. */
function senderAddress(mailFrom: string): string {
  return (/<([^>]+)>/.exec(mailFrom)?.[1] ?? mailFrom).trim();
}

const unsubscribeUrl = (appUrl: string, token: string) => `${appUrl}/unsubscribe/${token}`;

/**
 * An announcement as it is mailed: the member's name, the body, the licence's link, then — as
 * 特定電子メール法 asks — who sends it (name, postal address, contact) and how to stop them, with
 * RFC 8058's one-click unsubscribe headers. Transactional mails carry none of this.
 */
export function composeAnnouncement(
  draft: AnnouncementDraft,
  reader: AnnouncementReader,
  options: { appUrl: string; mailFrom: string },
) {
  const unsubscribe = unsubscribeUrl(options.appUrl, reader.token);
  const licenseUrl = draft.license ? `${options.appUrl}/licenses/${draft.license.id}` : null;
  const greeting = greetingOf(reader);
  const sender = [`送信者：${site.companyName}（${site.shopName}）`, site.address, site.contact];
  const why = `このメールは、${site.shopName}で「新しいトレーニングやライセンスのご案内をメールで受け取る」を選ばれた方にお送りしています。`;
  const stop = '今後このようなご案内が不要な場合は、次のURLから配信を停止できます（ログイン不要）。';
  const text = [
    greeting,
    '',
    draft.body,
    '',
    ...(draft.license && licenseUrl ? [`■ ${draft.license.name}`, licenseUrl, ''] : []),
    '――――――――――――――――',
    why,
    stop,
    unsubscribe,
    '',
    ...sender,
  ].join('\n');
  const paragraphs = draft.body
    .split(/\n{2,}/)
    .map((p) => `<p>${escapeHtml(p).replaceAll('\n', '<br>')}</p>`)
    .join('\n');
  const html = `<!doctype html><html lang="ja"><body style="font-family:sans-serif;line-height:1.7;color:#222">
<p>${escapeHtml(greeting)}</p>
${paragraphs}
${draft.license && licenseUrl ? `<p><a href="${escapeHtml(licenseUrl)}">${escapeHtml(draft.license.name)}</a></p>` : ''}
<hr><p style="font-size:12px;color:#555">${escapeHtml(why)}<br>${escapeHtml(stop)}<br><a href="${escapeHtml(unsubscribe)}">配信を停止する</a></p>
<p style="font-size:12px;color:#555">${sender.map(escapeHtml).join('<br>')}</p>
</body></html>`;
  const mailto = `mailto:${senderAddress(options.mailFrom)}?subject=unsubscribe`;
  return {
    subject: `【${site.shopName}】${draft.subject}`,
    text,
    html,
    headers: {
      'List-Unsubscribe': `<${unsubscribe}>, <${mailto}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    },
  };
}
