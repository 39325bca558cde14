import { type FormEvent, type ReactNode, useEffect, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { FormAlert } from '../../../components/ui/form-alert';
import { PagedTable, pageOf } from '../../../components/ui/paged-table';
import { usePageParam } from '../../../components/ui/pager';
import { TextInput } from '../../../components/ui/text-input';
import { ApiError } from '../../../lib/api';
import { withParams } from '../../../lib/search-params';
import { useFormSubmit } from '../../../lib/use-form-submit';
import { InvoiceTable, QuotationTable } from '../components/document-tables';
import { type DocumentKind, downloadDocument, useInvoices, useQuotations } from '../documents-api';

interface Kind {
  kind: DocumentKind;
  label: string;
  search: string;
}

const KINDS: Record<DocumentKind, Kind> = {
  quotation: { kind: 'quotation', label: '御見積書', search: '見積番号・宛名・会員の氏名・メールアドレス' },
  invoice: { kind: 'invoice', label: '御請求書', search: '請求書番号・注文番号・宛名・会員の氏名・メールアドレス' },
};

interface ResultsProps {
  shown: Kind;
  q: string;
  page: number;
  onPage: (page: number) => void;
  busy: boolean;
  onDownload: (number: string) => void;
}

type Search = { error: unknown; isLoading: boolean; mutate: () => unknown; data?: { members_capped: boolean } };

/** The paged frame of either list: the member-search note, loading, error, empty, count and pager. */
function Results<T>({
  shown,
  q,
  onPage,
  search,
  list,
  children,
}: Pick<ResultsProps, 'shown' | 'q' | 'onPage'> & {
  search: Search;
  list: ReturnType<typeof pageOf<{ page: number; per_page: number; total: number }, T>>;
  children: (rows: T[]) => ReactNode;
}) {
  const queryErrors = search.error instanceof ApiError && search.error.status === 422 ? search.error.errors : null;
  return (
    <>
      {search.data?.members_capped ? (
        <p className="alert" role="note">
          氏名・メールアドレスに合う会員が1,000人を超えたため、そのうち1,000人の書類だけを表示しています。もう少し長く入力してください。
        </p>
      ) : null}
      <PagedTable
        list={list}
        isLoading={search.isLoading}
        loadingLabel={`${shown.label}を読み込んでいます…`}
        error={search.error}
        onRetry={() => void search.mutate()}
        errorView={
          queryErrors ? (
            <div className="alert" role="alert">
              <p>検索条件を確認してください。{Object.values(queryErrors).join(' ')}</p>
            </div>
          ) : undefined
        }
        empty={<p>{q ? `条件に合う${shown.label}はありません。` : `まだ${shown.label}は発行されていません。`}</p>}
        summary={<p className="small">全{list?.total.toLocaleString('ja-JP')}件</p>}
        pagerLabel={`${shown.label}のページ送り`}
        onPage={onPage}
      >
        {children}
      </PagedTable>
    </>
  );
}

function QuotationResults({ busy, onDownload, ...props }: ResultsProps) {
  const search = useQuotations(props.q, props.page);
  return (
    <Results {...props} search={search} list={pageOf(search.data, (d) => d.quotations)}>
      {(rows) => <QuotationTable rows={rows} busy={busy} onDownload={onDownload} />}
    </Results>
  );
}

function InvoiceResults({ busy, onDownload, ...props }: ResultsProps) {
  const search = useInvoices(props.q, props.page);
  return (
    <Results {...props} search={search} list={pageOf(search.data, (d) => d.invoices)}>
      {(rows) => <InvoiceTable rows={rows} busy={busy} onDownload={onDownload} />}
    </Results>
  );
}

/**
 * /admin/documents: 御見積書 and 御請求書 that members issued, newest first, found by the number a
 * buyer quotes on the phone (from its start, any case, hyphens or none) or by the member; each PDF
 * can be drawn again (audited; an invoice's member downloads are not counted).
 */
export function DocumentsPage() {
  const [params, setParams] = useSearchParams();
  const { page, setPage } = usePageParam();
  const kind: DocumentKind = params.get('kind') === 'invoice' ? 'invoice' : 'quotation';
  const q = params.get('q') ?? '';
  const [typed, setTyped] = useState(q);
  // Back and forward change the search in the address: the field follows it.
  useEffect(() => setTyped(q), [q]);
  const download = useFormSubmit();
  const search = (event: FormEvent) => {
    event.preventDefault();
    setParams(withParams(params, { q: typed.trim(), page: '' }));
  };
  const props: ResultsProps = {
    shown: KINDS[kind],
    q,
    page,
    onPage: setPage,
    busy: download.busy,
    onDownload: (number) => void download.run(() => downloadDocument(kind, number)),
  };

  return (
    <section className="card">
      <h1>見積書・請求書</h1>
      <p className="lead">
        会員が発行した御見積書・御請求書です。番号（先頭から一部でも、ハイフンなしでも）、宛名（「〇〇消防局」など）、会員の氏名・メールアドレスで探せます。日時は日本時間です。
      </p>
      <nav aria-label="表示する書類" className="toolbar" style={{ display: 'flex', flexWrap: 'wrap', gap: '8px 16px' }}>
        {Object.values(KINDS).map((k) => (
          <Link
            key={k.kind}
            to={`/admin/documents${k.kind === 'invoice' ? '?kind=invoice' : ''}`}
            aria-current={k.kind === kind ? 'page' : undefined}
            onClick={() => setTyped('')}
          >
            {k.label}
          </Link>
        ))}
      </nav>
      <search aria-label={`${KINDS[kind].label}の検索`}>
        <form className="search" onSubmit={search}>
          <TextInput name="q" label={KINDS[kind].search} value={typed} onInput={setTyped} />
          <div className="search-actions">
            <button type="submit" className="button primary">
              検索する
            </button>
          </div>
        </form>
      </search>
      <FormAlert message={download.message} errors={download.errors} />
      {kind === 'quotation' ? <QuotationResults {...props} /> : <InvoiceResults {...props} />}
    </section>
  );
}
