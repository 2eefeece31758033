/**
 * Local-only controls on the deposits gateway (`/_local/...`), for tests and for a developer at
 * `npm start`; nothing of them is deployed:
 *   POST/GET/DELETE /_local/crash   arm, read and clear crash points
 *   POST/GET/DELETE /_local/dynamodb-faults
 *                                   arm ({ kind, accessToken, times? }), read and clear DynamoDB
 *                                   faults (`dynamodb-faults.ts`)
 *   POST/GET/DELETE /_local/relay-faults
 *                                   arm ({ depositId }: its next event fails to relay, and is set
 *                                   aside in the relay's DLQ), read and clear (`relay-faults.ts`)
 *   POST /_local/provider-calls     the provider calls made for a connection ({ accessToken,
 *                                   clear? }), oldest first
 *   POST /_local/traces             the functions that worked on a deposit ({ depositId }), each with
 *                                   the trace it worked in, oldest first (`traces.ts`)
 *   GET/POST /_local/clock          the local clock; POST { advanceSeconds } moves it forward
 */
import { z } from 'zod';
import { failedEnvelope, problemsOf } from '#shared/middleware/http';
import { badRequest } from '#shared/provider/interface/errors';
import { configuredOwnerDigests } from '#shared/wiring/owner-digests';
import { localClock } from './clock.ts';
import { crashPointNames, crashPoints } from './crash-points.ts';
import { dynamoDbFaultKinds, dynamoDbFaults } from './dynamodb-faults.ts';
import type { LocalRoutes } from './gateway.ts';
import { providerJournal } from './provider-journal.ts';
import { relayFaults } from './relay-faults.ts';
import { traceJournal } from './traces.ts';

type Answer = { status: number; body: unknown };

const CrashRule = z.object({
  point: z.enum(crashPointNames),
  accessToken: z.string().min(1),
  step: z.string().optional(),
  times: z.number().int().positive().optional(),
});
const DynamoDbFaultRule = z.object({
  kind: z.enum(dynamoDbFaultKinds),
  accessToken: z.string().min(1),
  times: z.number().int().positive().optional(),
});
const RelayFaultRule = z.object({ depositId: z.string().min(1) });
const JournalRequest = z.object({ accessToken: z.string().min(1), clear: z.boolean().optional() });
/** At most a year at a time: enough for any cool-down, and no way to overflow a date. */
const ClockAdvance = z.object({
  advanceSeconds: z
    .number()
    .int()
    .min(0)
    .max(366 * 86_400),
});

/** A body checked by `schema`, or the APIs' own 400 envelope naming what is wrong. */
function parsed<S extends z.ZodType>(schema: S, body: unknown, then: (value: z.infer<S>) => Answer) {
  const result = schema.safeParse(body);
  if (!result.success) return { status: 400, body: failedEnvelope(badRequest(problemsOf(result.error))) };
  return then(result.data);
}

function clockNow(): Answer {
  const now = localClock.now();
  return {
    status: 200,
    body: { now: new Date(now).toISOString(), aheadSeconds: Math.round(localClock.shift() / 1000) },
  };
}

export function localControls(): LocalRoutes {
  return new Map<string, (body: unknown) => Promise<Answer>>([
    [
      'POST /_local/crash',
      async (body) =>
        parsed(CrashRule, body, ({ point, accessToken, step, times }) => {
          // Keyed as the deposits key their connection (`ownerKey`), so a rule meets their writes.
          crashPoints.arm(point, configuredOwnerDigests().of(accessToken), { step, times });
          return { status: 200, body: { armed: { point, step, times: times ?? 1 } } };
        }),
    ],
    ['GET /_local/crash', async () => ({ status: 200, body: crashPoints.report() })],
    [
      'DELETE /_local/crash',
      async () => {
        crashPoints.clear();
        return { status: 200, body: { cleared: true } };
      },
    ],
    [
      'POST /_local/dynamodb-faults',
      async (body) =>
        parsed(DynamoDbFaultRule, body, ({ kind, accessToken, times }) => {
          dynamoDbFaults.arm(kind, configuredOwnerDigests().of(accessToken), times);
          return { status: 200, body: { armed: { kind, times: times ?? 1 } } };
        }),
    ],
    ['GET /_local/dynamodb-faults', async () => ({ status: 200, body: dynamoDbFaults.report() })],
    [
      'DELETE /_local/dynamodb-faults',
      async () => {
        dynamoDbFaults.clear();
        return { status: 200, body: { cleared: true } };
      },
    ],
    [
      'POST /_local/relay-faults',
      async (body) =>
        parsed(RelayFaultRule, body, ({ depositId }) => {
          relayFaults.arm(depositId);
          return { status: 200, body: { armed: { depositId } } };
        }),
    ],
    ['GET /_local/relay-faults', async () => ({ status: 200, body: relayFaults.report() })],
    [
      'DELETE /_local/relay-faults',
      async () => {
        relayFaults.clear();
        return { status: 200, body: { cleared: true } };
      },
    ],
    [
      'POST /_local/provider-calls',
      async (body) =>
        parsed(JournalRequest, body, ({ accessToken, clear }) => {
          const calls = providerJournal.of(accessToken);
          if (clear) providerJournal.clear(accessToken);
          return { status: 200, body: { calls } };
        }),
    ],
    [
      'POST /_local/traces',
      async (body) =>
        parsed(RelayFaultRule, body, ({ depositId }) => ({
          status: 200,
          body: { entries: traceJournal.of(depositId) },
        })),
    ],
    ['GET /_local/clock', async () => clockNow()],
    [
      'POST /_local/clock',
      async (body) =>
        parsed(ClockAdvance, body, ({ advanceSeconds }) => {
          localClock.advance(advanceSeconds * 1000);
          return clockNow();
        }),
    ],
  ]);
}
