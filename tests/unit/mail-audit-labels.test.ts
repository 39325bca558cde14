import { describe, expect, it } from 'vitest';
import { accountAuditLabels } from '../../src/modules/accounts/index.ts';
import { changesOf } from '../../src/modules/audit/changes.ts';
import { auditVocabulary } from '../../src/modules/audit/labels.ts';
import { checkoutAuditLabels } from '../../src/modules/checkout/index.ts';
import { licenseAuditLabels } from '../../src/modules/licenses/index.ts';
import { mailAuditLabels } from '../../src/modules/mail/index.ts';
import { saleAuditLabels } from '../../src/modules/sales/index.ts';

// The host's vocabulary, in the host's order (src/host/modules.ts).
const words = auditVocabulary([accountAuditLabels, licenseAuditLabels, saleAuditLabels, checkoutAuditLabels, mailAuditLabels]);

describe('the audit log’s words for a resent mail', () => {
  it('reads 送信失敗→送信中, 試行回数 and 宛先による拒否 in Japanese, not failed→sending, attempts, permanent', () => {
    const changes = changesOf(
      words,
      'mail',
      { status: 'failed', permanent: true, error: "Can't send mail - all recipients were rejected", attempts: 3 },
      { status: 'sending' },
    );
    const shown = changes.map((c) => `${c.label}: ${c.before ?? ''}→${c.after ?? ''}`);
    expect(shown).toContain('送信状態: 送信失敗→送信中');
    expect(shown).toContain('試行回数: 3回→');
    expect(shown).toContain('宛先による拒否: はい（自動では再送しない）→');
    expect(shown.join('\n')).not.toMatch(/failed|sending|attempts|permanent/);
  });

  it('leaves a sale’s 状態 to the sales module’s words', () => {
    const [change] = changesOf(words, 'sale', { status: 1 }, { status: 2 });
    expect(change?.label).toBe('状態');
    expect(change?.before).not.toBe('1');
    expect(change?.before).not.toMatch(/送信/);
  });
});
