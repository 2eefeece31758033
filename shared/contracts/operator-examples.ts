/**
 * The operator's answers about a deposit's webhooks and the whole service, as examples
 * (`examples.ts` puts them in the operator API's table): a deposit's deliveries, and the stats.
 */
import { at, depositId, transferReference } from './example-values.ts';

/** A resolution to `done` above the approval threshold, proposed by one operator: it waits for another. */
export const pendingResolution = {
  outcome: 'done',
  reference: transferReference,
  by: 'arn:aws:iam::123456789012:user/ops-amira',
  reason: 'Bank statement shows the transfer on 22 Nov',
  at: at('52:40.318'),
  expiresAt: '2026-11-23T07:52:40.318Z',
};

/**
 * The deposit's webhook deliveries: the cool-down heard at once; its done refused twice (the
 * receiver was redeploying), then taken, and resent by an operator who was asked about it.
 */
export const deliveries = {
  operationID: depositId,
  now: at('52:10.044'),
  deliveries: [
    {
      eventId: `${depositId}.v3`,
      type: 'deposit.cooling_down',
      occurredAt: at('35:07.053'),
      state: 'delivered',
      attempts: 1,
      firstTriedAt: at('35:07.180'),
      lastTriedAt: at('35:07.180'),
      deliveredAt: at('35:07.180'),
      tries: [{ at: at('35:07.180'), outcome: 'delivered', status: 200, tookMs: 84 }],
      resends: 0,
    },
    {
      eventId: `${depositId}.v6`,
      type: 'deposit.done',
      occurredAt: at('35:11.204'),
      state: 'delivered',
      attempts: 4,
      firstTriedAt: at('35:11.310'),
      lastTriedAt: at('51:58.412'),
      deliveredAt: at('35:17.655'),
      tries: [
        { at: at('35:11.310'), outcome: 'failed', status: 503, error: 'webhook answered 503', tookMs: 41 },
        { at: at('35:13.502'), outcome: 'failed', status: 503, error: 'webhook answered 503', tookMs: 38 },
        { at: at('35:17.655'), outcome: 'delivered', status: 200, tookMs: 97 },
        { at: at('51:58.412'), outcome: 'delivered', status: 200, tookMs: 88 },
      ],
      resends: 1,
      lastResend: { by: 'arn:aws:iam::123456789012:user/ops-amira', at: at('51:58.207') },
    },
  ],
};

/** A morning's counts, the deposits created hour by hour, and how long the done ones took. */
export const stats = {
  now: at('52:10.044'),
  counts: {
    initialized: { count: 4, capped: false },
    user_input_required: { count: 1, capped: false },
    done: { count: 57, capped: false },
    failed: { count: 3, capped: false },
    outcome_unknown: { count: 1, capped: false },
  },
  overTime: {
    from: '2026-11-22T00:00:00.000Z',
    to: '2026-11-23T00:00:00.000Z',
    binSeconds: 3600,
    bins: [
      {
        from: '2026-11-22T06:00:00.000Z',
        initialized: 0,
        user_input_required: 0,
        done: 21,
        failed: 1,
        outcome_unknown: 0,
      },
      {
        from: '2026-11-22T07:00:00.000Z',
        initialized: 4,
        user_input_required: 1,
        done: 36,
        failed: 2,
        outcome_unknown: 1,
      },
    ],
  },
  timeToDone: {
    deposits: 57,
    total: { medianSeconds: 4.4, p90Seconds: 86_412.3 },
    steps: [
      { step: 'resolve-bank', deposits: 57, medianSeconds: 0.1, p90Seconds: 0.3 },
      { step: 'ensure-beneficiary', deposits: 57, medianSeconds: 0.1, p90Seconds: 0.4 },
      { step: 'wait-cooldown', deposits: 12, medianSeconds: 3.6, p90Seconds: 86_400 },
      { step: 'transfer', deposits: 57, medianSeconds: 0.2, p90Seconds: 8.1 },
    ],
  },
};
