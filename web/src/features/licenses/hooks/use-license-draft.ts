import { useEffect, useState } from 'react';
import { type NavigationType, useLocation, useNavigate, useNavigationType } from 'react-router';
import { ApiError } from '../../../lib/api';
import { poppedSinceLoad } from '../../../lib/history-pop';
import { formatDateTime } from '../../../lib/japan-time';
import { useFormSubmit } from '../../../lib/use-form-submit';
import { emptyDraft, type LicenseDraft, type LicenseFormState, latestDraft, licenseDrafts } from '../api/license-draft';
import { fetchLicense } from '../api/licenses';

// A 'POP' without a popstate since the load is the page load itself; how the page was loaded then
// tells a reload from a typed address or a link from outside (lib/history-pop.ts listens from start-up).
const loadType = () => (performance.getEntriesByType?.('navigation')[0] as PerformanceNavigationTiming | undefined)?.type;

/**
 * Seed §2: entering the form from anywhere but its confirm screen starts afresh. Browser Back/Forward
 * and a reload do not enter it: they return to the same page, so the draft comes back with them.
 */
function returnsToDraft(type: NavigationType, state: LicenseFormState | null): boolean {
  if (state?.fromConfirm) return true;
  if (type !== 'POP') return false;
  const load = loadType();
  return poppedSinceLoad() || load === 'reload' || load === 'back_forward';
}

const KEPT_NOTICE = '保存していない入力内容を表示しています。不要な場合は「入力内容を破棄」を押してください。';
const latestNotice = (fresh: LicenseDraft) =>
  `最新の内容（${formatDateTime(fresh.updatedAt ?? '')} 更新）を読み込みました。この画面で入力していた変更（追加した画像を含む）は保存されておらず、破棄しました。必要な変更をもう一度行ってから、確認画面へ進んでください。`;

/** The draft shown on the licence form and how it came: kept from before, left from an earlier visit, or stale. */
function useDraftState() {
  const [draft, setDraft] = useState<LicenseDraft | null>(null);
  /** Changed on this screen: from then on every change is kept as the draft. */
  const [touched, setTouched] = useState(false);
  /** Showing a draft kept from before (Back, reload, 復元). */
  const [restored, setRestored] = useState(false);
  /** A draft left from an earlier visit, while this visit started afresh. */
  const [waiting, setWaiting] = useState<{ savedAt: number; pictureCount: number } | null>(null);
  const [notice, setNotice] = useState('');
  const [stale, setStale] = useState(false);
  const show = (next: LicenseDraft, how: { restored: boolean; notice?: string }) => {
    setDraft(next);
    setTouched(false);
    setRestored(how.restored);
    setWaiting(null);
    setStale(false);
    setNotice(how.notice ?? '');
  };
  const change = (next: LicenseDraft) => {
    setDraft(next);
    setTouched(true);
    // Starting afresh replaces the draft left from before (the offer said so).
    setWaiting(null);
  };
  return { draft, touched, restored, waiting, setWaiting, notice, stale, setStale, show, change };
}

/**
 * The licence form's draft (create when `id` is absent): kept in the browser on every change so Back
 * and reload find it, offered back after a fresh start, checked against the saved licence, and
 * replaced by the latest saved content on request.
 */
export function useLicenseDraft(id: string | undefined) {
  const key = id ?? 'create';
  const navigate = useNavigate();
  const location = useLocation();
  const navigationType = useNavigationType();
  const state = location.state as LicenseFormState | null;
  const [resume] = useState(() => returnsToDraft(navigationType, state));
  const [loadError, setLoadError] = useState<unknown>(null);
  const submit = useFormSubmit();
  const view = useDraftState();
  const { show } = view;

  /** A kept edit draft may have been overtaken while it waited: say so before the administrator goes on. */
  const checkStillCurrent = async (kept: LicenseDraft) => {
    if (!id || !kept.updatedAt) return;
    try {
      const { license } = await fetchLicense(id);
      if (license.updated_at !== kept.updatedAt) view.setStale(true);
    } catch {
      // Saving will tell (404, 409); nothing to add here.
    }
  };
  const loadLatest = async () => {
    if (!id) return;
    const fresh = await latestDraft(id);
    await licenseDrafts.clear(key);
    show(fresh, { restored: false, notice: latestNotice(fresh) });
  };

  // biome-ignore lint/correctness/useExhaustiveDependencies: runs once per visit of the form
  useEffect(() => {
    let live = true;
    const start = async () => {
      if (state?.reloadLatest) {
        await submit.run(loadLatest);
        // A reload of this page from now on returns to the draft, not to another "load the latest".
        navigate(location.pathname, { replace: true, state: { fromConfirm: true } satisfies LicenseFormState });
        return;
      }
      const kept = resume ? await licenseDrafts.load(key) : null;
      if (kept) {
        if (!live) return;
        show(kept, { restored: true, notice: state?.fromConfirm ? '' : KEPT_NOTICE });
        void checkStillCurrent(kept);
        return;
      }
      const fresh = id ? await latestDraft(id) : emptyDraft();
      const left = resume ? null : await licenseDrafts.peek(key);
      if (!live) return;
      show(fresh, { restored: false });
      view.setWaiting(left);
    };
    start().catch((error: unknown) => {
      if (live) setLoadError(error);
    });
    return () => {
      live = false;
    };
  }, []);

  // Every change is kept at once (pictures included), so Back and reload find it.
  useEffect(() => {
    if (view.draft && view.touched) void licenseDrafts.save(key, view.draft);
  }, [view.draft, view.touched, key]);

  const restore = () =>
    submit.run(async () => {
      const kept = await licenseDrafts.load(key);
      if (!kept) {
        view.setWaiting(null);
        throw new ApiError(0, '保存していた入力内容が見つかりませんでした。');
      }
      show(kept, { restored: true, notice: '保存していなかった入力内容を復元しました。' });
      void checkStillCurrent(kept);
    });

  return { ...view, ...submit, key, loadError, loadLatest, restore };
}
