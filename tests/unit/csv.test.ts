import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { contentDisposition, downloadNames, replaceUnmappable, toCp932Forms, unmappableIn } from '../../src/lib/csv.ts';
import { jstStamp } from '../../src/lib/japan-time.ts';

describe('CP932 (Windows-31J)', () => {
  it('maps the JIS-table characters to their CP932 forms, which encode and decode unchanged', () => {
    const input = '〜−‖—¢£¬';
    const mapped = toCp932Forms(input);
    expect(mapped).toBe('～－∥―￠￡￢');
    expect(unmappableIn(input)).toEqual([]);
    expect(iconv.decode(iconv.encode(mapped, 'cp932'), 'cp932')).toBe(mapped);
    expect(iconv.encode(mapped, 'cp932').includes(0x3f)).toBe(false);
  });

  it('finds what CP932 cannot hold and replaces it with 〓 on request, never with ?', () => {
    expect(unmappableIn('髙橋①ｱ№')).toEqual([]);
    expect(unmappableIn('𠮷野😀さん')).toEqual(['𠮷', '😀']);
    expect(replaceUnmappable('𠮷野😀〜')).toBe('〓野〓～');
    expect(unmappableIn('plain ascii, =1+2')).toEqual([]);
  });
});

describe('download names', () => {
  it('names a licence’s file in Japan time with an ASCII fallback (RFC 6266)', () => {
    const at = new Date('2026-11-22T06:30:00Z');
    expect(jstStamp(at)).toBe('20261122-1530');
    const names = downloadNames('BLS/ACLS "基礎"', at);
    expect(names).toEqual({ utf8: '研修登録_BLS_ACLS _基礎__20261122-1530.csv', ascii: 'training_20261122-1530.csv' });
    expect(contentDisposition(names)).toBe(
      `attachment; filename="training_20261122-1530.csv"; filename*=UTF-8''${encodeURIComponent(names.utf8)}`,
    );
    expect(contentDisposition(downloadNames(null, at))).toBe('attachment; filename="data.csv"');
  });
});
