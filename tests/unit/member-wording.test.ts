import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { splitPhrases } from '../../web/src/lib/phrase-breaks.tsx';

const WEB = join(import.meta.dirname, '../../web/src');
const sources = (readdirSync(WEB, { recursive: true }) as string[]).filter((f) => /\.tsx?$/.test(f) && !f.endsWith('.d.ts'));

describe('member wording (issue 35 item 6)', () => {
  it('says ログイン, never サインイン, in every screen (the passkey dialog included)', () => {
    for (const file of sources) {
      // Only what is shown: comments may name the concept as the libraries do.
      const shown = readFileSync(join(WEB, file), 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/^\s*\/\/.*$/gm, '');
      expect(shown.includes('サインイン'), file).toBe(false);
    }
  });

  it('splits a licence name where its words meet, never inside a katakana word', () => {
    expect(splitPhrases('外傷初期対応トレーニングライセンス')).toEqual(['外傷初期対応', 'トレーニング', 'ライセンス']);
    expect(splitPhrases('ACLS プロバイダーライセンス')).toEqual(['ACLS プロバイダー', 'ライセンス']);
    expect(splitPhrases('ライセンス')).toEqual(['ライセンス']);
    expect(splitPhrases('BLS 一次救命処置ライセンス')).toEqual(['BLS 一次救命処置', 'ライセンス']);
  });
});
