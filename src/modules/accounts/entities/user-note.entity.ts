import { defineEntity, p } from '@mikro-orm/core';
import { createdAt } from '../../../db/columns.ts';

/** ショップ用メモ on a member: for administrators only, never shown to the member; gone with the account. */
const UserNoteSchema = defineEntity({
  name: 'UserNote',
  tableName: 'user_notes',
  indexes: [
    {
      name: 'user_notes_user_id_index',
      expression: 'create index "user_notes_user_id_index" on "user_notes" ("user_id", "created_at")',
    },
  ],
  properties: {
    id: p.integer().primary().autoincrement(),
    userId: p.string().length(255).fieldName('user_id'),
    body: p.text(),
    authorId: p.string().length(255).fieldName('author_id'),
    authorEmail: p.string().length(254).fieldName('author_email'),
    createdAt: createdAt(),
  },
});
export class UserNote extends UserNoteSchema.class {}
UserNoteSchema.setClass(UserNote);
