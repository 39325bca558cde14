/** Shared by the server (e-mails) and the SPA. Replace the placeholders with the company's real details before going live. */
export const site = {
  shopName: 'ライセンスストア',
  companyName: '株式会社〇〇メディカル（仮）',
  tagline: '救急・防災の現場を支える医療機器メーカー（仮）',
  address: '〒000-0000 東京都〇〇区〇〇 0-0-0（仮）',
  contact: 'TEL: 00-0000-0000（平日 9:00〜17:00） / E-mail: support@example.jp（仮）',
  /** Where お問い合わせ goes unless CONTACT_TO says otherwise. */
  contactEmail: 'support@example.jp',
  copyright: '© 株式会社〇〇メディカル（仮） All Rights Reserved.',
  subsidyNote: '本サイトは事業再構築補助金を活用して構築しました。',
  representative: '代表取締役 〇〇 〇〇（仮）',
  trainingSystemOperator: '〇〇トレーニング株式会社（仮）',
  court: '〇〇地方裁判所（仮）',
} as const;

/** What the training system gets of each purchase (the export's columns): 利用規約 第6条 and the privacy policy quote it. */
export const TRAINING_SYSTEM_DATA = [
  '氏名（姓・名）',
  'メールアドレス',
  '所属（区分・所属名）',
  '購入したライセンス名',
  '購入日時',
] as const;
export const trainingSystemDataText = TRAINING_SYSTEM_DATA.join('・');

/** The server refuses to start when the registration number is not 「T」 and 13 digits (receipt-pdf.ts). */
export const receiptIssuer = {
  name: site.companyName,
  address: site.address,
  contact: 'TEL: 00-0000-0000（仮）',
  registrationNumber: 'T0000000000000',
  taxRatePercent: 10,
} as const;

export const QUALIFIED_INVOICE_NUMBER = /^T[0-9]{13}$/;

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

export const purchaseTerms = {
  paymentMethods: 'クレジットカード、コンビニ払い',
  paymentTiming: 'クレジットカードはご注文時、コンビニ払いはお支払い番号の発行後、期限までにお支払いください。',
  delivery: 'お支払いの確認後、研修管理システムへの登録が済み次第、メールでご案内します（通常5営業日以内）。',
  cancellation: 'お支払い確定後のキャンセル・返金はお受けできません。',
} as const;
