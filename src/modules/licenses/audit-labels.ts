import { yen } from '../../lib/yen.ts';
import type { AuditLabels } from '../audit/index.ts';
import { licenseNames } from './audit-names.ts';

/** How the audit log names what administrators do to licences (the host hands these to the audit module). */
export const licenseAuditLabels = {
  actions: {
    'license.create': 'ライセンスの新規登録',
    'license.update': 'ライセンスの編集',
    'license.delete': 'ライセンスの削除',
    'license.reorder': 'ライセンスの表示順の変更',
  },
  targets: { license: 'ライセンス' },
  fields: { description: '説明', price: '価格', published: '公開', pictures: '画像', position: '表示順' },
  fieldsByTarget: { license: { name: 'ライセンス名' } },
  values: {
    price: (v, text) => (typeof v === 'number' ? yen(v) : text.plain(v)),
    published: (v) => (v ? '公開' : '非公開'),
    position: (v, text) => (typeof v === 'number' ? `${v.toLocaleString('ja-JP')}番目` : text.plain(v)),
    pictures: (v, text) => (Array.isArray(v) ? `${v.length}枚${v.length ? `（${text.list(v)}）` : ''}` : text.plain(v)),
  },
  names: { license: licenseNames },
} satisfies AuditLabels;
