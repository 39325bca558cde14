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
  representative: '代表取締役 〇〇 〇〇（仮）',
  /** The operator of the external training-management system members' details are passed to. */
  trainingSystemOperator: '〇〇トレーニング株式会社（仮）',
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
      link: { label: 'プライバシーポリシー', to: '/privacy' },
    },
    {
      title: '第7条（規約の変更）',
      // 民法548条の4（定型約款の変更）: only for the members' general benefit or for a reasonable change,
      // announced with its content and effective date before it takes effect.
      body: '当社は、本規約の変更が会員の一般の利益に適合するとき、または本規約の変更が契約をした目的に反せず、かつ、変更の必要性、変更後の内容の相当性その他の変更に係る事情に照らして合理的なものであるときは、民法第548条の4の規定に基づき本規約を変更することがあります。この場合、当社は、変更後の規約の内容およびその効力発生日を、効力発生日の相当期間前までに本サービス上に掲示して周知し、会員の権利義務に重要な影響を及ぼす変更については登録メールアドレスあてにも通知します。',
    },
  ],
} as const;

/**
 * The privacy policy (/privacy), as Japan's 個人情報保護法 asks it to be published: who handles the
 * data, for what, to whom it is passed, how it is protected, how to ask for disclosure, correction or
 * a stop of use, cookies and the contact. Placeholders: replace them with the company's own policy.
 */
export const privacy = {
  title: 'プライバシーポリシー',
  establishedAt: '2026年11月1日',
  revisedAt: '2026年11月25日',
  lead: `${site.companyName}（以下「当社」）は、ライセンスストア（以下「本サービス」）でお預かりする個人情報を、個人情報の保護に関する法律（個人情報保護法）その他の法令を守り、以下のとおり取り扱います。`,
  sections: [
    {
      title: '1. 事業者の名称・住所・代表者',
      paragraphs: [`${site.companyName}　${site.address}　${site.representative}`],
    },
    {
      title: '2. 取得する個人情報',
      paragraphs: [
        '会員登録・購入の際にご入力いただく氏名、メールアドレス、所属（区分・所属名）、パスワード（ハッシュ化して保存し、当社も元の文字列を知ることはできません）、購入履歴、領収書の宛名、およびログイン時のIPアドレス・ブラウザの種類・ログイン日時。クレジットカード番号は決済代行会社が取得し、当社は保存しません。',
      ],
    },
    {
      title: '3. 利用目的',
      paragraphs: [
        '(1) 会員登録、本人確認、ログイン、アカウントの保護（不正ログインの検知と通知を含みます）のため',
        '(2) ライセンスの販売、代金の決済、領収書の発行、購入に関するご連絡のため',
        '(3) ご購入いただいたライセンスのトレーニングを実施するため、研修管理システムへ受講者として登録するため',
        '(4) お問い合わせへの対応、規約の変更その他の重要なお知らせのため',
        '(5) ご同意いただいた方へのトレーニング・製品のご案内のため（会員情報の画面でいつでも停止できます）',
      ],
    },
    {
      title: '4. 第三者提供・委託',
      paragraphs: [
        `当社は、法令に基づく場合を除き、ご本人の同意なく個人情報を第三者に提供しません。ライセンスをご購入いただいた場合、トレーニングの実施のため、研修管理システムを運営する${site.trainingSystemOperator}に、氏名・メールアドレス・所属・購入したライセンス名・購入日時を提供します（利用規約第6条）。`,
        '代金の決済は、決済代行会社 Stripe, Inc.（米国）に委託しています。お支払い情報は同社が管理し、米国に移転されることがあります。米国の個人情報保護制度については、個人情報保護委員会が公表する情報をご覧ください。メールの配信やサーバーの運用を外部の事業者に委託することがあり、委託先は当社が監督します。',
      ],
    },
    {
      title: '5. 安全管理措置',
      paragraphs: [
        '通信の暗号化、パスワードのハッシュ化、管理者の二段階認証、アクセス権限の管理と操作履歴の記録、従業者への教育、委託先の監督などの措置を講じています。',
      ],
    },
    {
      title: '6. 保有個人データの開示・訂正・利用停止等の請求',
      paragraphs: [
        'ご本人は、当社が保有する個人データの利用目的の通知、開示、訂正・追加・削除、利用の停止・消去、第三者提供の停止、第三者提供記録の開示を請求できます。下記のお問い合わせ窓口へご連絡ください。ご本人であることを確認したうえで、法令に従い遅滞なく対応します。氏名・所属・メールアドレスの訂正と退会は、会員情報の画面からもご自身で行えます。',
      ],
    },
    {
      title: '7. Cookie等の利用',
      paragraphs: [
        '本サービスは、ログイン状態の維持、なりすまし防止（CSRF対策）、新しい端末からのログインの検知のためにCookieを使用します。広告や行動履歴の追跡のためのCookieは使用しません。ブラウザの設定でCookieを無効にすると、ログインが必要な機能はご利用いただけません。',
      ],
    },
    {
      title: '8. お問い合わせ窓口',
      paragraphs: [`${site.companyName} 個人情報お問い合わせ窓口　${site.address}　${site.contact}`],
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
