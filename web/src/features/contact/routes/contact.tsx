import { type FormEvent, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { FormAlert, Notice } from '../../../components/ui/form-alert';
import { LoadError, Loading } from '../../../components/ui/load-state';
import { LoadingOverlay } from '../../../components/ui/loading-overlay';
import { useAuth } from '../../../lib/auth-store';
import { useFormSubmit } from '../../../lib/use-form-submit';
import { type ContactCategory, sendContact, useContactForm } from '../api';
import { ContactFields } from '../components/contact-fields';

const FIELDS = ['name', 'email', 'category', 'order_number', 'message', 'form_token'];

/** Signed in: the member's name and address; `?category=` and `?order=` from the page that linked here. */
function useInitialValues() {
  const user = useAuth().users[0];
  const [params] = useSearchParams();
  return {
    name: user ? `${user.last_name} ${user.first_name}`.trim() : '',
    email: user?.email ?? '',
    category: params.get('category') ?? '',
    order_number: params.get('order') ?? '',
    message: '',
  };
}

function Sent({ message }: { message: string }) {
  return (
    <section className="card narrow">
      <h1>お問い合わせ</h1>
      <Notice>{message}</Notice>
      <p className="small">
        確認のメールが届かない場合は、<Link to="/guide#mail">メールが届かないとき</Link>をご覧ください。
      </p>
    </section>
  );
}

/** /contact: お問い合わせ. The hidden 「website」 field is for scripts only (people never see it). */
export function ContactPage() {
  const form = useContactForm();
  const initial = useInitialValues();
  const [values, setValues] = useState(initial);
  const [website, setWebsite] = useState('');
  const [sent, setSent] = useState('');
  const { busy, message, errors, run } = useFormSubmit();
  const set = (field: keyof typeof values) => (value: string) => setValues((v) => ({ ...v, [field]: value }));
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const token = form.data?.form_token ?? '';
    await run(async () => {
      const answer = await sendContact({
        ...values,
        category: values.category as ContactCategory,
        order_number: values.order_number || null,
        form_token: token,
        website,
      });
      setSent(answer.message);
    });
  };
  if (sent) return <Sent message={sent} />;
  return (
    <section className="card narrow">
      <h1>お問い合わせ</h1>
      <p>
        ご購入、領収書、アカウントなどについてのご質問を承ります。よくあるご質問は<Link to="/guide">ご利用ガイド</Link>
        もご覧ください。退会後に領収書が必要になった方は、種類に「領収書の再発行（退会済みの方）」を選び、ご購入時のメールアドレスでお送りください。
      </p>
      {form.isLoading ? <Loading /> : null}
      {form.error ? <LoadError error={form.error} onRetry={() => void form.mutate()} /> : null}
      {form.data ? (
        <>
          <FormAlert message={message} errors={errors} fields={FIELDS} />
          <form onSubmit={submit} noValidate>
            <ContactFields
              values={values}
              errors={errors}
              categories={form.data.categories}
              messageMax={form.data.message_max}
              website={website}
              set={set}
              setWebsite={setWebsite}
            />
            <button type="submit" className="button primary" disabled={busy}>
              送信する
            </button>
          </form>
        </>
      ) : null}
      <LoadingOverlay show={busy} label="送信しています" />
    </section>
  );
}
