import { OnlineMigration } from '../src/db/online-migration.ts';

/**
 * フリガナ, the keys the users' search and 五十音 order read, and the last sign-in
 * (docs/decisions/0032-kana-and-name-folding.md). Nullable columns without a default: no table
 * rewrite, a moment's lock (lock_timeout applies). The keys are kept by a BEFORE trigger for every
 * writer (the shop, better-auth, a script); the next migration fills them for the rows already there.
 *
 * `shop_search_fold` is `searchKey` of src/db/like.ts: NFKC, lower case, no white space, then
 * hiragana as katakana and the 異体字 of NAME_VARIANTS (the two translate() strings are FOLD_FROM and
 * FOLD_TO as they were written; tests/api/member-kana.test.ts checks the database and the code agree).
 * Changing the table later: a new migration redefines this function and rewrites `search_key` in
 * batches as 20261126030100 does.
 */
export class Migration20261126030000_member_kana extends OnlineMigration {

  override name = 'Migration20261126030000_member_kana';

  override up(): void | Promise<void> {
    this.addSql(`alter table "users" add column "last_name_kana" varchar(50) null, add column "first_name_kana" varchar(50) null, add column "search_key" text null, add column "search_grams" text[] null, add column "kana_sort" text collate "C" null, add column "last_sign_in_at" timestamptz null;`);
    this.addSql(`create or replace function shop_search_fold(t text) returns text language sql immutable strict parallel safe as $$
      select translate(lower(regexp_replace(normalize(t, NFKC), '\\s', '', 'g')),
        'ぁあぃいぅうぇえぉおかがきぎくぐけげこごさざしじすずせぜそぞただちぢっつづてでとどなにぬねのはばぱひびぴふぶぷへべぺほぼぽまみむめもゃやゅゆょよらりるれろゎわゐゑをんゔゕゖゝゞ髙﨑嵜德邊邉齋齊斉澤濱濵廣國櫻眞惠榮冨嶋嶌槇龍峯曾條瀨淵實壽彌𠮷',
        'ァアィイゥウェエォオカガキギクグケゲコゴサザシジスズセゼソゾタダチヂッツヅテデトドナニヌネノハバパヒビピフブプヘベペホボポマミムメモャヤュユョヨラリルレロヮワヰヱヲンヴヵヶヽヾ高崎崎徳辺辺斎斎斎沢浜浜広国桜真恵栄富島島槙竜峰曽条瀬渕実寿弥吉')
    $$;`);
    // 五十音 order's first key: small kana as large, 濁音 and 半濁音 as 清音, ヴ as ウ; ー, ・, ヽ, ヾ and
    // spaces left out (JIS X 4061 compares so before it looks at those differences).
    this.addSql(`create or replace function shop_kana_order(t text) returns text language sql immutable strict parallel safe as $$
      select translate(t, 'ァィゥェォッャュョヮヵヶガギグゲゴザジズゼゾダヂヅデドバビブベボパピプペポヴー・ ヽヾ',
        'アイウエオツヤユヨワカケカキクケコサシスセソタチツテトハヒフヘホハヒフヘホウ')
    $$;`);
    // 姓名 and セイメイ, each folded, apart by a space no folded query holds.
    this.addSql(`create or replace function users_search_key(last_name text, first_name text, last_kana text, first_kana text)
      returns text language sql immutable parallel safe as $$
      select shop_search_fold(coalesce(last_name, '') || coalesce(first_name, '')) || ' ' ||
             shop_search_fold(coalesce(last_kana, '') || coalesce(first_kana, ''))
    $$;`);
    // 五十音 of セイ then メイ, then the フリガナ as written (清音 before 濁音), then 姓名; without フリガナ,
    // after everyone with it (U+FFFD sorts after every katakana), by 姓名.
    this.addSql(`create or replace function users_kana_sort(last_name text, first_name text, last_kana text, first_kana text)
      returns text language sql immutable parallel safe as $$
      select case when coalesce(last_kana, '') = '' and coalesce(first_kana, '') = ''
        then chr(65533) || ' ' || coalesce(last_name, '') || ' ' || coalesce(first_name, '')
        else shop_kana_order(coalesce(last_kana, '')) || ' ' || shop_kana_order(coalesce(first_kana, '')) || ' ' ||
             coalesce(last_kana, '') || ' ' || coalesce(first_kana, '') || ' ' || coalesce(last_name, '') || ' ' || coalesce(first_name, '')
      end
    $$;`);
    // The one- and two-character pieces of each part of a search key: a search of one or two
    // characters (「田」, 「斎藤」), which no trigram can serve, looks them up in a GIN index.
    this.addSql(`create or replace function shop_search_grams(key text) returns text[] language sql immutable strict parallel safe as $$
      select coalesce(array_agg(distinct gram), '{}') from (
        select substr(part, i, n) as gram
        from unnest(string_to_array(key, ' ')) as part, generate_series(1, 2) as n, generate_series(1, char_length(part)) as i
        where i + n - 1 <= char_length(part)) grams
    $$;`);
    this.addSql(`create or replace function users_name_keys() returns trigger language plpgsql as $$
      begin
        new.search_key := users_search_key(new.last_name, new.first_name, new.last_name_kana, new.first_name_kana);
        new.search_grams := shop_search_grams(new.search_key);
        new.kana_sort := users_kana_sort(new.last_name, new.first_name, new.last_name_kana, new.first_name_kana);
        return new;
      end
    $$;`);
    this.addSql(`create trigger users_name_keys before insert or update of last_name, first_name, last_name_kana, first_name_kana, search_key, search_grams, kana_sort on "users" for each row execute function users_name_keys();`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists users_name_keys on "users";`);
    this.addSql(`drop function if exists users_name_keys();`);
    this.addSql(`drop function if exists users_kana_sort(text, text, text, text);`);
    this.addSql(`drop function if exists users_search_key(text, text, text, text);`);
    this.addSql(`drop function if exists shop_kana_order(text);`);
    this.addSql(`drop function if exists shop_search_grams(text);`);
    this.addSql(`drop function if exists shop_search_fold(text);`);
    this.addSql(`alter table "users" drop column "last_name_kana", drop column "first_name_kana", drop column "search_key", drop column "search_grams", drop column "kana_sort", drop column "last_sign_in_at";`);
  }

}
