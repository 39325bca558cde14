import { type FormEvent, useEffect, useState } from 'react';
import { ApiError } from '../../../lib/api';
import { focusAfterFailedSubmit } from '../../../lib/use-form-submit';
import { type AddresseeKind, chooseAddressee, type Honorific, type ReceiptState } from '../receipt-api';
import type { ReceiptFieldErrors, ReceiptIssue } from './use-receipt-issue';

interface Choice {
  selected: AddresseeKind | null;
  typed: string;
  honorific: Honorific | null;
  proviso: string;
}

/** What the member must fix before the addressee is saved (it is fixed from the first issue on). */
function missingOf({ selected, typed, honorific, proviso }: Choice): ReceiptFieldErrors {
  const missing: ReceiptFieldErrors = {};
  if (!selected) missing.addressee = '宛名を選んでください。';
  if (selected === 'custom' && !typed.trim()) missing.addressee_text = '宛名を入力してください。';
  if (selected === 'custom' && !honorific) missing.honorific = '敬称は「様」か「御中」から選んでください。';
  // The form has its own honorific choice: the 宛名 is typed without one (the API would take it, but
  // the member would not see which one is printed).
  if (selected === 'custom' && /(様|御中|殿)$/u.test(typed.trim())) {
    missing.addressee_text = '宛名には「様」「御中」を付けずに入力し、敬称は「様」か「御中」から選んでください。';
  }
  if (!proviso.trim()) missing.proviso = '但し書きを入力してください。';
  return missing;
}

/**
 * The first issue's form: the addressee (nothing preselected: it is fixed once issued, so the member
 * chooses it knowingly), its honorific and the 但し書き; saved, then the PDF downloaded.
 */
export function useAddresseeForm(saleId: number, data: ReceiptState, receipt: ReceiptIssue, refresh: () => unknown) {
  const [choice, setChoice] = useState<AddresseeKind | null>(null);
  const [text, setText] = useState<string | null>(null);
  const [honorific, setHonorific] = useState<Honorific | null>(null);
  const [proviso, setProviso] = useState<string | null>(null);
  const { failure, setFailure, setBusy } = receipt;
  // A refused choice: focus moves to the first field in error, as on every form (lib/use-form-submit.ts).
  useEffect(() => {
    if (failure.fields?.addressee || failure.fields?.honorific) focusAfterFailedSubmit();
  }, [failure.fields]);
  const values: Choice = {
    selected: choice ?? data.addressee_kind ?? null,
    typed: text ?? data.addressee_text ?? '',
    honorific: honorific ?? data.honorific ?? null,
    proviso: proviso ?? data.proviso,
  };
  const fields = failure.fields ?? {};
  /** A field's message goes once the member changes that field. */
  const edited = (name: keyof ReceiptFieldErrors) => {
    if (fields[name]) setFailure((current) => ({ ...current, fields: { ...current.fields, [name]: undefined } }));
  };

  const save = async () => {
    const { selected, typed, honorific: chosen, proviso: provisoText } = values;
    // submit() has already refused a form with no choice (missingOf).
    if (!selected) return;
    await chooseAddressee(saleId, {
      addressee: selected,
      ...(selected === 'custom' ? { addressee_text: typed, honorific: chosen } : {}),
      proviso: provisoText,
    });
  };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const missing = missingOf(values);
    if (Object.keys(missing).length) {
      setFailure({ message: '入力内容を確認してください。', fields: missing });
      return;
    }
    setBusy(true);
    setFailure({});
    try {
      await save();
    } catch (caught) {
      setBusy(false);
      if (caught instanceof ApiError) {
        const { addressee, addressee_text, honorific: h, proviso: p } = caught.errors as Record<string, string | undefined>;
        setFailure({ message: caught.message, fields: { addressee, addressee_text, honorific: h, proviso: p } });
        if (caught.status === 409) void refresh();
      } else setFailure({ message: '宛名を保存できませんでした。時間をおいて再度お試しください。' });
      return;
    }
    await receipt.issue(false);
  };

  const set = {
    choice: (value: AddresseeKind) => {
      setChoice(value);
      edited('addressee');
    },
    text: (value: string) => {
      setText(value);
      edited('addressee_text');
    },
    honorific: (value: Honorific) => {
      setHonorific(value);
      edited('honorific');
    },
    proviso: (value: string) => {
      setProviso(value);
      edited('proviso');
    },
  };
  return { values, fields, set, submit };
}
