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

/**
 * The issuer printed on the 領収書 (receipt PDF, a 適格簡易請求書 under Japan's qualified-invoice
 * system): the seller's name and address and its 適格請求書発行事業者 registration number, 「T」 and 13
 * digits as the tax office issued it. Placeholders: replace them with the real details before going
 * live. The server refuses to start when the number does not have that shape (src/modules/sales/receipt-pdf.ts).
 */
export const receiptIssuer = {
  name: site.companyName,
  address: site.address,
  contact: 'TEL: 00-0000-0000（仮）',
  registrationNumber: 'T0000000000000',
  /** The consumption tax rate every licence carries (標準税率 10%); prices are tax included. */
  taxRatePercent: 10,
} as const;

/** The shape of a qualified-invoice registration number: 「T」 and 13 half-width digits. */
export const QUALIFIED_INVOICE_NUMBER = /^T[0-9]{13}$/;

/** The terms of use (/terms). Placeholder text to be replaced by the company's own terms. */
export const terms = {
  title: '利用規約',
  updatedAt: '2026年11月1日',
  sections: [
    {
      title: '第1条（適用）',
      body: '本規約は、株式会社〇〇メディカル（仮）（以下「当社」）が運営するライセンスストア（以下「本サービス」）の利用に関する条件を定めるものです。会員は本規約に同意のうえ本サービスを利用するものとします。',
    },
    {
      title: '第2条（会員登録）',
      body: '本サービスは、自衛隊、警察関係、海上保安庁、消防・救急、医療機関その他の公共安全・医療に携わる方を対象とします。登録希望者は、当社の定める方法により正確な所属情報を届け出るものとします。',
    },
    {
      title: '第3条（アカウントの管理）',
      body: '会員は、自己の責任においてメールアドレスおよびパスワードを管理するものとし、第三者に利用させてはなりません。',
    },
    {
      title: '第4条（ライセンスの購入）',
      body: 'ライセンスの購入代金は、購入手続き画面に表示される税込価格とし、決済代行会社の提供する決済方法により支払うものとします。',
    },
    {
      title: '第5条（返品・キャンセル）',
      body: 'ライセンスの性質上、購入完了後のキャンセルおよび返金には原則として応じられません。ただし、当社の責に帰すべき事由がある場合はこの限りではありません。',
    },
    {
      title: '第6条（個人情報の取扱い）',
      body: '当社は、会員の個人情報を当社のプライバシーポリシーに従い適切に取り扱います。トレーニングの実施に必要な範囲で、研修管理システムに氏名・所属・メールアドレスを登録することがあります。',
    },
    {
      title: '第7条（規約の変更）',
      body: '当社は、必要と判断した場合には、会員に通知することなく本規約を変更することができるものとします。',
    },
  ],
} as const;

/** The /ctoms landing page. Placeholder text. */
export const landing = {
  title: 'トレーニングライセンスのご案内',
  lead: '救急・防災・医療の現場で活躍する方のための、実践的なトレーニングプログラムのライセンスをオンラインでお求めいただけます。',
  points: [
    '所属機関の情報でご登録いただける会員制のサービスです。',
    'ライセンスはクレジットカードなどでオンライン決済できます。',
    'ご購入後、研修管理システムへの登録をご案内します。',
  ],
} as const;

/** 特定商取引法に基づく表記 (/specified_commercial_transactions_law) and the purchase screen. Placeholders. */
export const legal = {
  title: '特定商取引法に基づく表記',
  items: [
    { term: '販売事業者', detail: '株式会社〇〇メディカル（仮）' },
    { term: '運営責任者', detail: '〇〇 〇〇（仮）' },
    { term: '所在地', detail: '〒000-0000 東京都〇〇区〇〇 0-0-0（仮）' },
    { term: '電話番号', detail: '00-0000-0000（平日 9:00〜17:00）（仮）' },
    { term: 'メールアドレス', detail: 'support@example.jp（仮）' },
    { term: '販売価格', detail: '各ライセンスのページに税込価格で表示しています。' },
    { term: '商品代金以外の必要料金', detail: 'なし（インターネット接続料金・通信料金はお客様のご負担です）' },
    { term: 'お支払い方法', detail: 'クレジットカード、コンビニ払い（決済代行：Stripe）' },
    {
      term: 'お支払い時期',
      detail:
        'クレジットカード：ご注文時にお支払いが確定します。コンビニ払い：お支払い番号の発行後、期限までにお支払いください。',
    },
    {
      term: 'ライセンスの提供時期',
      detail: 'お支払いの確認後、研修管理システムへの登録が済み次第、メールでご案内します（通常5営業日以内）。',
    },
    {
      term: '返品・キャンセル',
      detail: 'ライセンスの性質上、お支払い確定後のキャンセル・返金はお受けできません。当社の責による場合はご連絡ください。',
    },
  ],
} as const;

/** The purchase procedure screen's points (Japan's 特定商取引法 final-confirmation rules). */
export const purchaseTerms = {
  paymentMethods: 'クレジットカード、コンビニ払い',
  paymentTiming: 'クレジットカードはご注文時、コンビニ払いはお支払い番号の発行後、期限までにお支払いください。',
  delivery: 'お支払いの確認後、研修管理システムへの登録が済み次第、メールでご案内します（通常5営業日以内）。',
  cancellation: 'お支払い確定後のキャンセル・返金はお受けできません。',
} as const;
