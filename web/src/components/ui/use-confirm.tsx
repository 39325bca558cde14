import { type ReactNode, useCallback, useRef, useState } from 'react';
import { ConfirmDialog } from './confirm-dialog';

/** What a confirmation says: its title, what will change (counts, names) and the button that does it. */
export interface ConfirmRequest {
  title: string;
  body: ReactNode;
  confirmLabel: string;
  danger?: boolean;
}

/**
 * `window.confirm` in the app's own accessible dialog: `confirm(request)` opens ConfirmDialog and
 * resolves true when the administrator presses the confirm button, false on キャンセル or Esc.
 * Render `dialog` once in the component.
 */
export function useConfirm(): { confirm: (request: ConfirmRequest) => Promise<boolean>; dialog: ReactNode } {
  const [request, setRequest] = useState<ConfirmRequest | null>(null);
  const answer = useRef<((yes: boolean) => void) | null>(null);

  const confirm = useCallback(
    (next: ConfirmRequest) =>
      new Promise<boolean>((resolve) => {
        answer.current?.(false);
        answer.current = resolve;
        setRequest(next);
      }),
    [],
  );
  const close = (yes: boolean) => {
    answer.current?.(yes);
    answer.current = null;
    setRequest(null);
  };

  const dialog = (
    <ConfirmDialog
      open={request !== null}
      title={request?.title ?? ''}
      confirmLabel={request?.confirmLabel ?? ''}
      danger={request?.danger ?? false}
      onConfirm={() => close(true)}
      onCancel={() => close(false)}
    >
      {request?.body ?? null}
    </ConfirmDialog>
  );
  return { confirm, dialog };
}

/** The first few names of a list, then 「ほかN件」: what a confirmation names without growing without end. */
export function firstFew(names: string[], shown = 5): string {
  const head = names.slice(0, shown).join('、');
  return names.length > shown ? `${head} ほか${(names.length - shown).toLocaleString('ja-JP')}件` : head;
}
