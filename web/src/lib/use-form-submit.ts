import { useState } from 'react';
import { checkInputMessage } from '../../../src/lib/field-labels.ts';
import { ApiError, type FieldErrors, INVALID_INPUT_MESSAGE } from './api';

/**
 * Focus after a failed submission. A submit (the form's event, or `run` below) remembers where it
 * happened; when the answer's errors are drawn, focus moves to the first invalid field there, or to
 * the form's one summary (FormAlert) when no field is marked. Typing elsewhere or a later success
 * forgets it, so messages that appear while the member types never steal the focus.
 */
let pending: { scope: Element; at: number } | undefined;
const PENDING_MS = 30_000;

function remember(scope: Element | null | undefined) {
  pending = scope ? { scope, at: Date.now() } : undefined;
}

if (typeof document !== 'undefined') {
  document.addEventListener('submit', (event) => remember(event.target as Element), true);
  document.addEventListener('input', () => remember(undefined), true);
}

/** Called when a field message or a form summary is drawn (components/ui/field.tsx, form-alert.tsx). */
export function focusAfterFailedSubmit() {
  const current = pending;
  if (!current) return;
  // After React has drawn every message of this answer.
  setTimeout(() => {
    if (pending !== current) return;
    pending = undefined;
    if (Date.now() - current.at > PENDING_MS) return;
    const scope = current.scope.isConnected ? current.scope : document.querySelector('main');
    if (!scope) return;
    const invalid = scope.querySelector<HTMLElement>('[aria-invalid="true"]:not([disabled])');
    if (invalid) {
      invalid.focus();
      return;
    }
    const region = scope.closest('section, main') ?? scope;
    const summary = region.querySelector<HTMLElement>('[data-form-alert]') ?? region.querySelector<HTMLElement>('[role="alert"]');
    if (!summary) return;
    if (!summary.hasAttribute('tabindex')) summary.tabIndex = -1;
    summary.focus();
  }, 0);
}

/** The API's generic 422, summarised with the form's own labels when it gives them. */
function messageOf(error: ApiError, labels: Readonly<Record<string, string>> | undefined): string {
  const generic = error.status === 422 && (error.body as { message?: string } | undefined)?.message === INVALID_INPUT_MESSAGE;
  return generic && labels ? checkInputMessage(Object.keys(error.errors), labels) : error.message;
}

/**
 * Busy flag, message and field errors of one form submission (422 → first message per field).
 * `labels`: the form's own labels of its fields, which the summary names instead of the generic ones.
 */
export function useFormSubmit(labels?: Readonly<Record<string, string>>) {
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});

  async function run<T>(work: () => Promise<T>): Promise<T | undefined> {
    if (busy) return undefined;
    // A button outside a form (or a submit handler calling run): its form, else its section;
    // unless this very submission's event has just been seen.
    const justSubmitted = pending?.scope.isConnected && Date.now() - pending.at <= 1000;
    if (!justSubmitted) {
      const active = document.activeElement;
      remember(active && active !== document.body ? active.closest('form, section, main') : document.querySelector('main'));
    }
    const attempt = pending;
    setBusy(true);
    setMessage('');
    setErrors({});
    try {
      const result = await work();
      if (pending === attempt) remember(undefined);
      return result;
    } catch (error) {
      if (error instanceof ApiError) {
        setMessage(messageOf(error, labels));
        setErrors(error.errors);
      } else {
        setMessage('エラーが発生しました。時間をおいて再度お試しください。');
      }
      return undefined;
    } finally {
      setBusy(false);
    }
  }

  return { busy, message, errors, run };
}
