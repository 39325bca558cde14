import { p } from '@mikro-orm/core';

/** `created_at`, set when the row is first persisted. */
export const createdAt = () =>
  p
    .datetime()
    .fieldName('created_at')
    .onCreate(() => new Date());

/** `updated_at`, set on insert and on every update through the ORM. */
export const updatedAt = () =>
  p
    .datetime()
    .fieldName('updated_at')
    .onCreate(() => new Date())
    .onUpdate(() => new Date());
