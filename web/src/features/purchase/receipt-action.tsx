import { useEffect, useId, useRef, useState } from 'react';
import useSWR from 'swr';
import { FormAlert, Notice } from '../../components/ui/form-alert';
import { Loading } from '../../components/ui/load-state';
import { TextInput } from '../../components/ui/text-input';
import { ApiError, api, networkError } from '../../lib/api';
import { focusAfterFailedSubmit } from '../../lib/use-form-submit';
import './receipt.css';

type AddresseeKind = 'name' | 'organisation' | 'custom';
type Honorific = '様' | '御中';

interface ReceiptState {
  sale_id: number;
  receipt_number: string;
  license_name: string;
  issued: boolean;
  issue_count: number;
  addressee_kind: AddresseeKind | null;
  addressee: string | null;
  addressee_text: string | null;
  honorific: Honorific | null;
  proviso: string;
  default_proviso: string;
  options: { value: Exclude<AddresseeKind, 'custom'>; label: string }[];
  honorifics: Honorific[];
  konbini: boolean;
  copy_only: boolean;
}

/** What the action needs of a row of the purchase history. */
export interface ReceiptSale {
  id: number;
  license_name: string;
  paid_at?: string | null;
  refunded_at: string | null;
}

/**
 * Fetches the PDF and saves it under its Japanese name. Fetched, not navigated to: a refusal (refunded,
 * signed out) is shown beside the button instead of replacing the page with its JSON.
 */
async function downloadReceipt(saleId: number, fileName: string, copy = false) {
  let res: Response;
  try {
    res = await fetch(`/api/sales/${saleId}/receipt${copy ? '?copy=1' : ''}`, { credentials: 'include', cache: 'no-store' });
  } catch {
    throw networkError();
  }
  if (!res.ok) {
    const body = (await res.json().catch(() => undefined)) as { message?: string } | undefined;
    throw new ApiError(res.status, body?.message ?? '領収書を表示できませんでした。時間をおいて再度お試しください。');
  }
  const url = URL.createObjectURL(await res.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

const receiptNumberOf = (saleId: number) => `R-${String(saleId).padStart(8, '0')}`;

/**
 * The administrators' view of a member's receipt: the 控え only, marked as such on the PDF, never
 * counted and never fixing the member's addressee — no addressee dialog.
 */
export function ReceiptCopyAction({ sale }: { sale: ReceiptSale }) {
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState('');
  if (sale.refunded_at || !sale.paid_at) return <span>—</span>;
  const download = async () => {
    setBusy(true);
    setFailure('');
    try {
      await downloadReceipt(sale.id, `領収書_${receiptNumberOf(sale.id)}_控え.pdf`, true);
    } catch (caught) {
      setFailure(caught instanceof ApiError ? caught.message : '控えを表示できませんでした。');
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="receipt-copy">
      <button type="button" className="button small" disabled={busy} onClick={() => void download()}>
        {busy ? '準備しています…' : '控え（PDF）'}
        <span className="visually-hidden">：{sale.license_name}の領収書の控え</span>
      </button>
      {failure ? (
        <p className="field-message" role="alert">
          {failure}
        </p>
      ) : null}
    </div>
  );
}

/**
 * 「領収書（PDF）」 of one paid sale in the member's purchase history. The first time it asks for the
 * addressee (the buyer's name, their organisation or a typed 宛名 with 様 or 御中) and the 但し書き,
 * both fixed from the first issue on; later issues are marked 再発行 on the PDF, and the dialog says so
 * before the member downloads again. `autoOpen`: the purchase mail's link opens it at once.
 */
export function ReceiptAction({ sale, autoOpen = false }: { sale: ReceiptSale; autoOpen?: boolean }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [open, setOpen] = useState(false);
  const titleId = useId();
  const available = !sale.refunded_at && Boolean(sale.paid_at);
  const show = () => {
    setOpen(true);
    if (!dialog.current?.open) dialog.current?.showModal();
  };
  // biome-ignore lint/correctness/useExhaustiveDependencies: opened once, when the page is reached through the mail's link
  useEffect(() => {
    if (autoOpen && available) show();
  }, [autoOpen, available]);
  if (!available) return <span>—</span>;
  return (
    <>
      <button type="button" className="button small" aria-haspopup="dialog" onClick={show}>
        領収書（PDF）
        <span className="visually-hidden">：{sale.license_name}</span>
      </button>
      <dialog ref={dialog} className="receipt-dialog" aria-labelledby={titleId} onClose={() => setOpen(false)}>
        <h2 id={titleId}>領収書の発行</h2>
        <p className="receipt-dialog-licence">{sale.license_name}</p>
        {open ? <ReceiptDialogBody saleId={sale.id} /> : null}
        <div className="receipt-dialog-actions">
          <button type="button" className="button secondary" onClick={() => dialog.current?.close()}>
            閉じる
          </button>
        </div>
      </dialog>
    </>
  );
}

/** For a konbini payment: which paper proves the payment, and what the shop's receipt is. */
function KonbiniNote() {
  return (
    <p className="receipt-dialog-konbini">
      コンビニ払いでは、コンビニ店舗でお受け取りになった<strong>払込票控え（受領証）</strong>
      がお支払いの証明になります。当店の領収書はご希望の方に発行するもので、PDF にもその旨を記載します。
    </p>
  );
}

type FieldErrors = Partial<Record<'addressee' | 'addressee_text' | 'honorific' | 'proviso', string>>;

function ReceiptDialogBody({ saleId }: { saleId: number }) {
  const { data, error, isLoading, mutate } = useSWR<ReceiptState>(`/api/sales/${saleId}/receipt-addressee`);
  const [choice, setChoice] = useState<AddresseeKind | null>(null);
  const [text, setText] = useState<string | null>(null);
  const [honorific, setHonorific] = useState<Honorific | null>(null);
  const [proviso, setProviso] = useState<string | null>(null);
  const [failure, setFailure] = useState<{ message?: string; fields?: FieldErrors }>({});
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState('');
  const fieldId = useId();
  // A refused choice: focus moves to the first field in error, as on every form (lib/use-form-submit.ts).
  useEffect(() => {
    if (failure.fields?.addressee || failure.fields?.honorific) focusAfterFailedSubmit();
  }, [failure.fields]);

  /** Downloads the PDF (each time counted by the server) and reads the receipt's state again. */
  const issue = async (again: boolean) => {
    if (!data) return;
    setBusy(true);
    setFailure({});
    try {
      await downloadReceipt(saleId, `領収書_${data.receipt_number}.pdf`);
      setNotice(again ? '領収書（再発行）をダウンロードしました。' : '領収書をダウンロードしました。');
    } catch (caught) {
      setFailure({ message: caught instanceof ApiError ? caught.message : '領収書を発行できませんでした。' });
    } finally {
      setBusy(false);
      void mutate();
    }
  };

  if (isLoading) return <Loading />;
  if (error || !data) {
    return (
      <div className="alert" role="alert">
        <p>{error instanceof ApiError ? error.message : '読み込みに失敗しました。時間をおいて再度お試しください。'}</p>
        <button type="button" className="button small" onClick={() => void mutate()}>
          再読み込み
        </button>
      </div>
    );
  }

  if (data.issued) {
    return (
      <div className="receipt-dialog-body">
        {data.konbini ? <KonbiniNote /> : null}
        <dl className="receipt-dialog-facts">
          <dt>宛名</dt>
          <dd>{data.addressee}</dd>
          <dt>但し書き</dt>
          <dd>但し {data.proviso}</dd>
          <dt>領収書番号</dt>
          <dd>{data.receipt_number}</dd>
          <dt>発行回数</dt>
          <dd>{data.issue_count}回</dd>
        </dl>
        <p>宛名と但し書きは発行済みのため変更できません。もう一度ダウンロードすると、領収書に「再発行」と記載されます。</p>
        {notice ? <Notice>{notice}</Notice> : null}
        {failure.message ? <FormAlert message={failure.message} /> : null}
        <button type="button" className="button primary" disabled={busy} onClick={() => void issue(true)}>
          {busy ? '発行しています…' : '再発行する（PDF）'}
        </button>
      </div>
    );
  }

  // Nothing is preselected: the addressee is fixed once issued, so the member chooses it knowingly.
  const selected = choice ?? data.addressee_kind ?? null;
  const typed = text ?? data.addressee_text ?? '';
  const chosenHonorific = honorific ?? data.honorific ?? null;
  const provisoText = proviso ?? data.proviso;
  const fields = failure.fields ?? {};
  /** A field's message goes once the member changes that field. */
  const edited = (name: keyof FieldErrors) => {
    if (fields[name]) setFailure((current) => ({ ...current, fields: { ...current.fields, [name]: undefined } }));
  };

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    const missing: FieldErrors = {};
    if (!selected) missing.addressee = '宛名を選んでください。';
    if (selected === 'custom' && !typed.trim()) missing.addressee_text = '宛名を入力してください。';
    if (selected === 'custom' && !chosenHonorific) missing.honorific = '敬称は「様」か「御中」から選んでください。';
    // The form has its own honorific choice: the 宛名 is typed without one (the API would take it, but
    // the member would not see which one is printed).
    if (selected === 'custom' && /(様|御中|殿)$/u.test(typed.trim())) {
      missing.addressee_text = '宛名には「様」「御中」を付けずに入力し、敬称は「様」か「御中」から選んでください。';
    }
    if (!provisoText.trim()) missing.proviso = '但し書きを入力してください。';
    if (Object.keys(missing).length) {
      setFailure({ message: '入力内容を確認してください。', fields: missing });
      return;
    }
    setBusy(true);
    setFailure({});
    try {
      await api(`/api/sales/${saleId}/receipt-addressee`, {
        method: 'PUT',
        body: {
          addressee: selected,
          ...(selected === 'custom' ? { addressee_text: typed, honorific: chosenHonorific } : {}),
          proviso: provisoText,
        },
      });
    } catch (caught) {
      setBusy(false);
      if (caught instanceof ApiError) {
        const errors = caught.errors as Record<string, string | undefined>;
        const next: FieldErrors = {
          addressee: errors.addressee,
          addressee_text: errors.addressee_text,
          honorific: errors.honorific,
          proviso: errors.proviso,
        };
        setFailure({ message: caught.message, fields: next });
        if (caught.status === 409) void mutate();
      } else {
        setFailure({ message: '宛名を保存できませんでした。時間をおいて再度お試しください。' });
      }
      return;
    }
    await issue(false);
  };

  const describedBy = (name: 'addressee' | 'honorific') =>
    [name === 'addressee' ? `${fieldId}-note` : '', fields[name] ? `${fieldId}-${name}-error` : ''].filter(Boolean).join(' ') ||
    undefined;

  return (
    <form className="receipt-dialog-body" onSubmit={submit} noValidate>
      <FormAlert message={failure.message} />
      {data.konbini ? <KonbiniNote /> : null}
      <fieldset aria-describedby={describedBy('addressee')}>
        <legend>宛名</legend>
        {data.options.map((option) => (
          <label key={option.value} className="receipt-dialog-choice">
            <input
              type="radio"
              name={`addressee-${saleId}`}
              value={option.value}
              checked={selected === option.value}
              aria-invalid={fields.addressee ? true : undefined}
              onChange={() => {
                setChoice(option.value);
                edited('addressee');
              }}
            />
            {option.value === 'name' ? '氏名' : '所属'}：{option.label}
          </label>
        ))}
        <label className="receipt-dialog-choice">
          <input
            type="radio"
            name={`addressee-${saleId}`}
            value="custom"
            checked={selected === 'custom'}
            aria-invalid={fields.addressee ? true : undefined}
            onChange={() => {
              setChoice('custom');
              edited('addressee');
            }}
          />
          宛名を入力する（例：〇〇病院 総務課）
        </label>
        {fields.addressee ? (
          <p id={`${fieldId}-addressee-error`} className="field-message">
            {fields.addressee}
          </p>
        ) : null}
      </fieldset>
      {selected === 'custom' ? (
        <div className="receipt-dialog-custom">
          <TextInput
            label="宛名（60文字以内）"
            name="addressee_text"
            value={typed}
            required
            autoComplete="organization"
            message={fields.addressee_text}
            onInput={(value) => {
              setText(value);
              edited('addressee_text');
            }}
          />
          <fieldset aria-describedby={describedBy('honorific')}>
            <legend>敬称</legend>
            <div className="receipt-dialog-honorifics">
              {data.honorifics.map((value) => (
                <label key={value} className="receipt-dialog-choice">
                  <input
                    type="radio"
                    name={`honorific-${saleId}`}
                    value={value}
                    checked={chosenHonorific === value}
                    aria-invalid={fields.honorific ? true : undefined}
                    onChange={() => {
                      setHonorific(value);
                      edited('honorific');
                    }}
                  />
                  {value}
                </label>
              ))}
            </div>
            {fields.honorific ? (
              <p id={`${fieldId}-honorific-error`} className="field-message">
                {fields.honorific}
              </p>
            ) : null}
          </fieldset>
        </div>
      ) : null}
      <TextInput
        label="但し書き（40文字以内）"
        name="proviso"
        value={provisoText}
        required
        message={fields.proviso}
        onInput={(value) => {
          setProviso(value);
          edited('proviso');
        }}
      />
      <p className="receipt-dialog-note">領収書には「但し {provisoText.trim() || data.default_proviso}」と記載されます。</p>
      <p id={`${fieldId}-note`} className="receipt-dialog-note">
        宛名と但し書きは最初の発行のあとは変更できません。
      </p>
      <button type="submit" className="button primary" disabled={busy}>
        {busy ? '発行しています…' : 'この内容で発行する（PDF）'}
      </button>
    </form>
  );
}
