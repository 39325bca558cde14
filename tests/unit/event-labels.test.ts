import { describe, expect, it } from 'vitest';
import { eventNames, queueNames } from '../../src/events/contracts.ts';
import { eventLabels, jobLabel, queueLabel } from '../../src/events/labels.ts';
import { rewordMessages } from '../../src/http/queue-dashboard.ts';

describe('the administrator’s words for queues and jobs', () => {
  it('has a distinct Japanese label for every event and queue', () => {
    for (const name of eventNames) expect(jobLabel(name), name).toMatch(/[ぁ-んァ-ヶ一-龠]/);
    expect(new Set(Object.values(eventLabels)).size).toBe(eventNames.length);
    expect(queueNames.map(queueLabel)).toEqual(['メール', '決済', 'CSV出力', 'お知らせ配信']);
    expect(jobLabel('SalePaid')).toBe('購入の記録');
  });

  it('says so for a job the code does not know, keeping its name to look up', () => {
    expect(jobLabel('broken')).toBe('不明なジョブ（broken）');
    expect(queueLabel('other')).toBe('other');
  });

  it('rewords bull-board’s messages: 「予約」 for delayed jobs, no English status inside a sentence', () => {
    expect(
      rewordMessages({
        QUEUE: { STATUS: { DELAYED: '遅延' }, EMPTY_STATE: 'このキューに{{status}}ジョブはありません。' },
        JOB: { DELAYED_FOR: '遅延時間', LIST: ['{{count}} ジョブ', 3] },
      }),
    ).toEqual({
      QUEUE: { STATUS: { DELAYED: '予約' }, EMPTY_STATE: 'このキューに、この状態のジョブはありません。' },
      JOB: { DELAYED_FOR: '実行までの時間', LIST: ['{{count}}件', 3] },
    });
  });
});
