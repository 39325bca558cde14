import { type FormEvent, type ReactNode, useEffect, useId, useRef } from 'react';
import './confirm-dialog.css';

/**
 * The app's own confirmation, in place of the browser's `window.confirm`: a modal dialog (the native
 * `<dialog>` opened with showModal, so the rest of the page is inert and focus stays inside; Esc
 * cancels) named by its title and described by its body, which says what will change. Focus goes to
 * the first field of the body, else to 「キャンセル」 (never straight onto a destructive button), and
 * returns to where it was when the dialog closes. While `busy`, neither Esc nor the buttons close it.
 */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  cancelLabel = 'キャンセル',
  danger = false,
  busy = false,
  confirmDisabled = false,
  onConfirm,
  onCancel,
}: {
  open: boolean;
  title: string;
  /** What will change (counts, names) and any fields the confirmation needs. */
  children: ReactNode;
  confirmLabel: string;
  cancelLabel?: string;
  /** The confirm button is drawn as a destructive action. */
  danger?: boolean;
  busy?: boolean;
  confirmDisabled?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  const opener = useRef<Element | null>(null);
  const titleId = useId();
  const bodyId = useId();

  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (open && !element.open) {
      opener.current = document.activeElement;
      element.showModal();
      const first = element.querySelector<HTMLElement>('.confirm-dialog-body :is(input, textarea, select):not([disabled])');
      (first ?? cancel.current)?.focus();
    } else if (!open && element.open) {
      element.close();
      if (opener.current instanceof HTMLElement && opener.current.isConnected) opener.current.focus();
    }
  }, [open]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!busy && !confirmDisabled) onConfirm();
  };

  return (
    <dialog
      ref={dialog}
      className="confirm-dialog"
      aria-modal="true"
      aria-labelledby={titleId}
      aria-describedby={bodyId}
      onCancel={(event) => {
        // Esc: the dialog stays until the parent says it is closed (and not while the request runs).
        event.preventDefault();
        if (!busy) onCancel();
      }}
    >
      <form onSubmit={submit} noValidate>
        <h2 id={titleId}>{title}</h2>
        <div id={bodyId} className="confirm-dialog-body">
          {children}
        </div>
        <div className="confirm-dialog-actions">
          <button ref={cancel} type="button" className="button secondary" disabled={busy} onClick={onCancel}>
            {cancelLabel}
          </button>
          <button type="submit" className={`button${danger ? ' danger' : ''}`} disabled={busy || confirmDisabled}>
            {busy ? '処理しています…' : confirmLabel}
          </button>
        </div>
      </form>
    </dialog>
  );
}
