import { type FormEvent, useState } from 'react';
import { useSearchParams } from 'react-router';
import { FormAlert, Info, Notice } from '../../../components/ui/form-alert';
import { NoWorkerAlert } from '../../../components/ui/no-worker-alert';
import { PagedTable, pageOf } from '../../../components/ui/paged-table';
import { usePageParam } from '../../../components/ui/pager';
import { useConfirm } from '../../../components/ui/use-confirm';
import { ApiError } from '../../../lib/api';
import { formatDateTime } from '../../../lib/japan-time';
import { useCan } from '../../../lib/permissions';
import { withParams } from '../../../lib/search-params';
import { useFormSubmit } from '../../../lib/use-form-submit';
import { EVENT_FILTERS, type InboxEvent, replayEvent, useInbox } from '../api';
import { type InboxFilters, InboxSearch, NO_FILTERS } from './inbox-search';
import { InboxTable } from './inbox-table';

/** 再実行 of one received event, confirmed; the notice says how the replay ended. */
function useReplay(refresh: () => Promise<unknown>) {
  const [notice, setNotice] = useState('');
  const replay = useFormSubmit();
  const { confirm, dialog } = useConfirm();
  const rerun = async (event: InboxEvent) => {
    const yes = await confirm({
      title: '決済の通知を再実行します',
      confirmLabel: '再実行する',
      body: (
        <p>
          {formatDateTime(event.received_at)}に受け取った「{event.type_label}
          」の通知を、もう一度処理します。売上は重複して作られません。
        </p>
      ),
    });
    if (!yes) return;
    setNotice('');
    void replay.run(async () => {
      const { event: after } = await replayEvent(event.id);
      setNotice(
        after.state === 'failed'
          ? `再実行しましたが失敗しました：${after.error ?? '原因不明'}`
          : `再実行しました（${after.outcome_label ?? '処理済み'}）。`,
      );
      await refresh();
    });
  };
  return { ...replay, notice, dialog, rerun };
}

/** Stripe イベント: the inbox of received events, searchable, each replayable. */
export function InboxSection() {
  const [params, setParams] = useSearchParams();
  const { setPage } = usePageParam();
  const [form, setForm] = useState(() => Object.fromEntries(EVENT_FILTERS.map((f) => [f, params.get(f) ?? ''])) as InboxFilters);
  const { data, error, isLoading, mutate } = useInbox(params);
  const replay = useReplay(mutate);
  const canReplay = useCan()('payments:update');
  const filtered = EVENT_FILTERS.some((f) => params.get(f));
  // A search the server refuses (an end before the start) says why beside the field, with no 再読み込み.
  const refused = error instanceof ApiError && error.status === 422;
  const search = (event: FormEvent) => {
    event.preventDefault();
    setParams(withParams(new URLSearchParams(), { ...form, page: '' }));
  };
  const clear = () => {
    setForm(NO_FILTERS);
    setParams(new URLSearchParams());
  };
  return (
    <section className="subsection" id="inbox" aria-labelledby="inbox-heading">
      <h2 id="inbox-heading">Stripe イベント</h2>
      <InboxSearch
        form={form}
        onChange={setForm}
        filtered={filtered}
        invalid={refused ? error.errors : {}}
        onSubmit={search}
        onClear={clear}
      />
      {data?.workers_alive === false ? (
        <NoWorkerAlert waiting="受け取った決済の通知はワーカーが処理します（売上の記録もそれまで行われません）。" />
      ) : null}
      {replay.notice ? <Notice>{replay.notice}</Notice> : null}
      <FormAlert message={replay.message} errors={replay.errors} />
      <PagedTable
        list={pageOf(data, (d) => d.events)}
        isLoading={isLoading}
        error={error}
        onRetry={refused ? undefined : () => void mutate()}
        empty={<Info>{filtered ? '条件に合うイベントはありません。' : 'Stripe からのイベントはまだ届いていません。'}</Info>}
        pagerLabel="受信したイベントのページ送り"
        onPage={setPage}
      >
        {(events) => (
          <InboxTable
            events={events}
            busy={replay.busy}
            onReplay={canReplay ? (event) => void replay.rerun(event) : undefined}
            onChanged={() => void mutate()}
          />
        )}
      </PagedTable>
      {replay.dialog}
    </section>
  );
}
