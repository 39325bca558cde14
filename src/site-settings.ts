/**
 * The shop's own texts, shared by the server (e-mails) and the SPA (header, footer, legal pages).
 * Replace the placeholders with the company's real details before going live.
 */
export const site = {
  shopName: 'ライセンスストア',
  companyName: '株式会社〇〇メディカル（仮）',
  tagline: '救急・防災の現場を支える医療機器メーカー（仮）',
  address: '〒000-0000 東京都〇〇区〇〇 0-0-0（仮）',
  contact: 'TEL: 00-0000-0000（平日 9:00〜17:00） / E-mail: support@example.jp（仮）',
  copyright: '© 株式会社〇〇メディカル（仮） All Rights Reserved.',
  subsidyNote: '本サイトは事業再構築補助金を活用して構築しました。',
} as const;
