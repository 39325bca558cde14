import { type FormEvent, useState } from 'react';
import { firstFew, useConfirm } from '../../../components/ui/use-confirm';
import { useFormSubmit } from '../../../lib/use-form-submit';
import {
  type AdminSale,
  advanceSales,
  revertSales,
  type SaleCounts,
  SaleStatus,
  type SaleStatusLabels,
  statusLabel,
} from '../api';
import { count } from '../components/sale-counts';

type Move = typeof SaleStatus.InProgress | typeof SaleStatus.Registered;
type Scope = 'selected' | 'search';

const saleName = (sale: AdminSale) =>
  `${sale.order_number ?? `売上ID ${sale.id}`}（${sale.user.last_name} ${sale.user.first_name}）`;
const fromOf = (to: Move) => (to === SaleStatus.InProgress ? SaleStatus.AwaitingExport : SaleStatus.InProgress);

/** What the confirmation says it will move. */
function MoveBody({
  to,
  scope,
  n,
  picked,
  license,
  label,
}: {
  label: (status: SaleStatus) => string;
  to: Move;
  scope: Scope;
  n: number;
  picked: AdminSale[];
  license?: string;
}) {
  const what = scope === 'selected' ? `選択した${count(n)}` : `検索結果の「${label(fromOf(to))}」${count(n)}すべて`;
  return (
    <>
      <p>
        {what}を「{label(to)}」にします。
      </p>
      {scope === 'selected' ? (
        <p className="small">対象：{firstFew(picked.map(saleName))}</p>
      ) : (
        <p className="small">
          対象：{license ? `「${license}」の` : ''}検索条件に合う「{label(fromOf(to))}
          」の売上（返金済みを除く）
        </p>
      )}
    </>
  );
}

/** The sales of the search a move from `from` takes: a status filter other than the move's own leaves none. */
function matchingCount(params: URLSearchParams, counts: SaleCounts | undefined, from: SaleStatus): number {
  const filterStatus = params.get('status');
  if (params.get('audit_id') || (filterStatus !== null && filterStatus !== '' && Number(filterStatus) !== from)) return 0;
  return from === SaleStatus.AwaitingExport ? (counts?.awaiting ?? 0) : (counts?.in_progress ?? 0);
}

/** The selection on the issue screen: which sales are ticked, and which of them a move or a revert takes. */
export function useSaleSelection() {
  const [selected, setSelected] = useState<Map<number, AdminSale>>(new Map());
  const toggle = (sale: AdminSale) => {
    const next = new Map(selected);
    if (next.has(sale.id)) next.delete(sale.id);
    else next.set(sale.id, sale);
    setSelected(next);
  };
  const chosen = (status: SaleStatus) => [...selected.values()].filter((s) => s.status === status && !s.refunded_at);
  const revertable = [...selected.values()].filter((s) => s.status !== SaleStatus.AwaitingExport && !s.refunded_at);
  return { selected, toggle, chosen, revertable, clear: () => setSelected(new Map()) };
}

/**
 * 処理中にする・登録済みにする and 差し戻す: moves exactly what the button says — the selected sales, or
 * every sale of the search with the confirmed count — then refreshes the list and its counts.
 */
export function useSaleMoves({
  params,
  counts,
  statuses,
  licenseName,
  selection,
  refresh,
}: {
  params: URLSearchParams;
  counts: SaleCounts | undefined;
  statuses: SaleStatusLabels | undefined;
  licenseName: string | undefined;
  selection: ReturnType<typeof useSaleSelection>;
  refresh: () => Promise<void>;
}) {
  const [notice, setNotice] = useState('');
  const [reverting, setReverting] = useState<AdminSale[] | null>(null);
  const [reason, setReason] = useState('');
  const submit = useFormSubmit({ reason: '差し戻しの理由' });
  const { confirm, dialog } = useConfirm();
  const licenseId = params.get('license_id');
  const matching = (from: SaleStatus) => matchingCount(params, counts, from);
  const label = (status: SaleStatus) => statusLabel(statuses, status);

  const advance = async (to: Move, scope: Scope) => {
    const picked = selection.chosen(to === SaleStatus.InProgress ? SaleStatus.AwaitingExport : SaleStatus.InProgress);
    const ids = picked.map((s) => s.id);
    const n =
      scope === 'selected'
        ? ids.length
        : matching(to === SaleStatus.InProgress ? SaleStatus.AwaitingExport : SaleStatus.InProgress);
    const yes = await confirm({
      title: `売上を「${label(to)}」にします`,
      confirmLabel: `${count(n)}を${label(to)}にする`,
      body: <MoveBody label={label} to={to} scope={scope} n={n} picked={picked} license={licenseName} />,
    });
    if (!yes) return;
    const search = {
      q: params.get('q') ?? undefined,
      paid_from: params.get('paid_from') ?? undefined,
      paid_to: params.get('paid_to') ?? undefined,
    };
    void submit.run(async () => {
      try {
        const res = await advanceSales({
          status: to,
          licenseId: Number(licenseId),
          expected_count: n,
          ...(scope === 'selected' ? { saleIds: ids } : search),
        });
        setNotice(res.message);
        selection.clear();
      } finally {
        await refresh();
      }
    });
  };

  const revert = (event: FormEvent) => {
    event.preventDefault();
    if (!reverting) return;
    void submit.run(async () => {
      const res = await revertSales({ saleIds: reverting.map((s) => s.id), reason });
      setNotice(res.message);
      setReverting(null);
      setReason('');
      selection.clear();
      await refresh();
    });
  };

  return { ...submit, notice, reverting, setReverting, reason, setReason, matching, advance, revert, dialog };
}
