import { defineEntity, p } from '@mikro-orm/core';
import { User } from './user.entity.ts';

/**
 * A browser an account has signed in from, by the id in its signed device cookie (devices.ts). A
 * sign-in from a browser not listed for the account mails 新しい端末からのログイン.
 */
const KnownDeviceSchema = defineEntity({
  name: 'KnownDevice',
  tableName: 'known_devices',
  properties: {
    user: () => p.manyToOne(User).fieldName('user_id').primary().deleteRule('cascade'),
    deviceId: p.string().length(64).fieldName('device_id').primary(),
    userAgent: p.text().fieldName('user_agent').nullable(),
    createdAt: p.datetime().fieldName('created_at').defaultRaw('now()'),
    lastSeenAt: p.datetime().fieldName('last_seen_at').defaultRaw('now()'),
  },
});
export class KnownDevice extends KnownDeviceSchema.class {}
KnownDeviceSchema.setClass(KnownDevice);
