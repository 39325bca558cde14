import type { PasswordValues, ProfileValues } from './profile';

/**
 * Form values carried from a form to its confirm screen and back. Kept in memory only (passwords
 * must not reach storage): reloading a confirm screen finds nothing and returns to the form.
 */
let registration: (ProfileValues & PasswordValues) | null = null;

/** A profile edit and the version of the user it was loaded from (`updated_at`). */
export interface EditDraft {
  values: ProfileValues;
  updatedAt: string | undefined;
}
const edits = new Map<string, EditDraft>();

export const registrationDraft = {
  get: () => registration,
  set: (values: ProfileValues & PasswordValues) => {
    registration = values;
  },
  clear: () => {
    registration = null;
  },
};

export const editDraft = {
  get: (id: string) => edits.get(id) ?? null,
  set: (id: string, draft: EditDraft) => edits.set(id, draft),
  clear: (id: string) => edits.delete(id),
};
