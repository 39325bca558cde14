import { afterAll, beforeAll, expect, it } from 'vitest';
import { TestClient } from '../support/http-client.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

// Issue 35 item 6: the e-mail's pieces and the name read aloud (フリガナ, romanised) are context too.
let t: TestRuntime;
let seq = 0;
beforeAll(async () => {
  t = await startTestRuntime();
}, 60_000);
afterAll(async () => t?.stop());

const EMAIL = 'パスワードにメールアドレスの一部を含めることはできません。';
const NAME = 'パスワードにお名前（姓・名）を含めることはできません。';

const registration = (patch: Record<string, unknown>) => {
  const email = (patch.email as string | undefined) ?? `ctx-${++seq}@example.jp`;
  const password = patch.password as string;
  return {
    email,
    email_confirmation: email,
    last_name: '看護',
    first_name: '花子',
    last_name_kana: 'カンゴ',
    first_name_kana: 'ハナコ',
    affiliations: 4,
    affiliation_name: '〇〇病院',
    affiliation_other: '',
    distribution: false,
    ...patch,
    password_confirmation: password,
  };
};

it('refuses the romanised and kana name and the pieces of the e-mail, in Japanese, at registration', async () => {
  const guest = new TestClient(t.app, '10.79.0.1');
  const refused: [Record<string, unknown>, string][] = [
    [{ password: 'kangohanako99' }, NAME],
    [{ password: 'HANAKO-river-2031' }, NAME],
    [{ password: 'ｋａｎｇｏ-river-2031' }, NAME],
    // 訓令式 too: シミズ → simizu.
    [{ last_name_kana: 'シミズ', first_name_kana: 'チヒロ', password: 'simizu-lantern-55' }, NAME],
    [{ password: 'カンゴハナコ-lantern' }, NAME],
    // kobayashi.fire_station-77 → kobayashi, fire, station: each piece of four or more characters.
    [{ email: `kobayashi.fire_station-77x${++seq}@example.jp`, password: 'station-ember-9012' }, EMAIL],
    [{ email: `dr.yamamoto${++seq}@example.jp`, password: 'Yamamoto-lantern-88' }, EMAIL],
  ];
  for (const [patch, message] of refused) {
    const res = await guest.post('/api/users/registration/validate', registration(patch));
    expect(res.status, JSON.stringify(patch)).toBe(422);
    expect((await res.json()).errors.password, JSON.stringify(patch)).toEqual([message]);
  }
  // Pieces of three characters or fewer are not a rule (「ken」 of ken.ito, the kana ハナ).
  const fine = await guest.post(
    '/api/users/registration/validate',
    registration({ email: `ken.ito${++seq}@example.jp`, password: 'ken-harbour-lantern' }),
  );
  expect(fine.status).toBe(200);
});
