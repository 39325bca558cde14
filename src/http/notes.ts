import * as v from 'valibot';
import { printable } from '../lib/printable-text.ts';
import { timestamp } from './openapi.ts';

const MAX_NOTE = 2000;

/** POST …/notes (ショップ用メモ on an order or a member): 1..2000 characters, line breaks kept. */
export const NoteInput = v.object({
  body: v.pipe(
    v.string('メモを入力してください。'),
    printable('メモ', { multiline: true }),
    v.trim(),
    v.minLength(1, 'メモを入力してください。'),
    v.check((text: string) => [...text].length <= MAX_NOTE, `メモは${MAX_NOTE}文字以内で入力してください。`),
  ),
});

export const NoteAnswer = v.pipe(
  v.object({ id: v.number(), body: v.string(), author_email: v.string(), created_at: timestamp() }),
  v.metadata({ ref: 'Note' }),
);

export const noteDto = (row: { id: number; body: string; author_email: string; created_at: string | Date }) => ({
  id: row.id,
  body: row.body,
  author_email: row.author_email,
  created_at: new Date(row.created_at).toISOString(),
});
