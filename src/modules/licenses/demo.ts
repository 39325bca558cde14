import sharp from 'sharp';
import type { Orm } from '../../db/orm.ts';
import type { FileStore } from '../../storage/file-store.ts';
import { createLicense } from './admin-licenses.ts';
import { License } from './entities/license.entity.ts';

const DEMO = [
  {
    name: 'BLS（一次救命処置）講習ライセンス',
    price: 11000,
    colors: ['#c0392b', '#e67e22'],
    label: 'BLS',
    description: '心肺蘇生とAEDの使い方を、実技を中心に学ぶ講習のライセンスです。受講後、修了証を発行します。',
  },
  {
    name: '外傷初期対応トレーニングライセンス',
    price: 33000,
    colors: ['#1f618d', '#2e86c1'],
    label: 'TRAUMA',
    description: '止血・搬送など、現場での外傷初期対応を学ぶトレーニングのライセンスです。',
  },
  {
    name: '災害医療チーム研修ライセンス',
    price: 55000,
    colors: ['#117a65', '#27ae60'],
    label: 'DISASTER',
    description: '多数傷病者への対応とチーム連携を学ぶ研修のライセンスです。',
  },
];

async function picture(label: string, color: string, caption: string): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="960" height="720">
    <rect width="100%" height="100%" fill="${color}"/>
    <text x="50%" y="48%" font-family="sans-serif" font-size="120" font-weight="bold" fill="#fff" text-anchor="middle">${label}</text>
    <text x="50%" y="64%" font-family="sans-serif" font-size="48" fill="#fff" text-anchor="middle">${caption}</text>
  </svg>`;
  return sharp(Buffer.from(svg)).jpeg({ quality: 85 }).toBuffer();
}

/** On an empty development database: a few licences with generated pictures. Never in production. */
export async function seedDemoLicenses(orm: Orm, store: FileStore): Promise<number> {
  if ((await orm.em.fork().count(License, {})) > 0) return 0;
  for (const demo of DEMO) {
    const files = await Promise.all(
      demo.colors.map(async (color, index) => ({
        field: `file[${index}]`,
        filename: `${demo.label.toLowerCase()}-${index + 1}.jpg`,
        data: await picture(demo.label, color, index === 0 ? 'TRAINING LICENSE' : 'DEMO'),
      })),
    );
    await createLicense(
      orm,
      store,
      { id: 'system', email: 'demo-seed' },
      { name: demo.name, description: demo.description, price: demo.price },
      files,
    );
  }
  return DEMO.length;
}
