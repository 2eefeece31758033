/**
 * Cost per million deposits in AWS, line by line, from what one deposit was counted to do on the
 * local stack (test/bench/counting.ts), the functions' measured durations and their memory sizes
 * (infra/cdk/settings.ts), and the price table (test/bench/prices.ts). Beside it, the same flow as a
 * Step Functions Standard workflow calling the same step functions.
 *
 * Left out: what does not grow with deposits (the KMS key's $1 a month, alarms, the dashboard, the
 * sweeper's run every minute, the event source mappings' empty long polls: about 5 pollers per
 * queue, 3 requests a minute each, some 650,000 SQS requests a month per queue); the sandbox's own
 * table and functions (the provider's side); webhook delivery (the bench runs without a webhook).
 *
 * The caller's own reads of the deposit (`GET`-like `/v1/deposits/get`: the bench reads until it
 * sees `done`) are lines apart (`caller: true`), priced per read and left out of the totals: a caller
 * that listens to webhooks makes none. Each read is one API request, one invocation and one GetItem
 * of the deposit (1 read unit, the item being under 4 KB): those units are taken off the table's.
 */

import { settingsOf } from '#infra/cdk/settings';
import { depositsApi, type HandlerName, queues, tables } from '#shared/topology';
import type { PerDeposit } from './counting.ts';
import { logBytesPerInvocation, prices } from './prices.ts';

export interface CostLine {
  item: string;
  /** How many per deposit. */
  perDeposit: number;
  unit: string;
  usdPerMillion: number;
  /** The caller's reads: apart from the deposit's own cost. */
  caller?: true;
}

/** The route a caller reads its deposit by. */
const readRoutes = ['/v1/deposits/get', '/v1/sources/get'];

/** The API's routes of a flow: the caller's reads, or the deposit's own requests. */
const routesOf = (flow: Flow, reads: boolean) =>
  Object.entries(flow.api).filter(([path]) => readRoutes.includes(path) === reads);
const requestsOf = (routes: [string, { count: number }][]) =>
  routes.reduce((sum, [, route]) => sum + route.count, 0);
/** The deposit's own API requests: the caller's reads left out. */
const ownRequests = (flow: Flow) => requestsOf(routesOf(flow, false));

export interface Flow {
  counts: PerDeposit;
  /** API requests per deposit by route path, with their mean time in ms. */
  api: Record<string, { count: number; meanMs: number }>;
}

const perMillion = (quantity: number, usd: number) => quantity * usd * 1e6;

function lambdaLines(name: string, handler: HandlerName, count: number, meanMs: number): CostLine[] {
  const memoryMb = settingsOf(handler).memoryMb;
  // Lambda bills each invocation's duration rounded up to the millisecond.
  const gbSeconds = count * (Math.ceil(meanMs) / 1000) * (memoryMb / 1024);
  return [
    {
      item: `Lambda ${name}: invocations`,
      perDeposit: count,
      unit: 'request',
      usdPerMillion: perMillion(count, prices.lambdaRequest.usd),
    },
    {
      item: `Lambda ${name}: ${memoryMb} MB x ${meanMs.toFixed(0)} ms`,
      perDeposit: gbSeconds,
      unit: 'GB-s',
      usdPerMillion: perMillion(gbSeconds, prices.lambdaArmGbSecond.usd),
    },
  ];
}

const handlerOfRoute = (path: string) =>
  depositsApi.routes.find((route) => route.path === path)?.handler ?? depositsApi.defaultHandler;
const handlerOfQueue = (name: string) =>
  Object.values(queues).find((queue) => queue.localName === name)?.handler;

/** The lines every design shares: the API, the API's functions, the deposits table, the key. */
function sharedLines(flow: Flow): CostLine[] {
  const reads = requestsOf(routesOf(flow, true));
  const apiRequests = ownRequests(flow);
  const depositsTable = ` ${tables.deposits.localName}`;
  let readUnits = 0;
  let writeUnits = 0;
  for (const [key, count] of Object.entries(flow.counts.aws)) {
    if (!key.startsWith('DynamoDB') || !key.endsWith(depositsTable)) continue;
    readUnits += count.readUnits;
    writeUnits += count.writeUnits;
  }
  // The caller's reads, one GetItem (1 read unit) each, are the caller's line.
  readUnits -= reads;
  const kms = flow.counts.keys.generate + flow.counts.keys.unwrap;
  return [
    {
      item: 'API Gateway HTTP API: requests',
      perDeposit: apiRequests,
      unit: 'request',
      usdPerMillion: perMillion(apiRequests, prices.httpApiRequest.usd),
    },
    ...routesOf(flow, false).flatMap(([path, route]) =>
      lambdaLines(path.replace('/v1/deposits/', 'api '), handlerOfRoute(path), route.count, route.meanMs),
    ),
    {
      item: 'DynamoDB on-demand: write units',
      perDeposit: writeUnits,
      unit: 'WRU',
      usdPerMillion: perMillion(writeUnits, prices.dynamodbWriteUnit.usd),
    },
    {
      item: 'DynamoDB on-demand: read units',
      perDeposit: readUnits,
      unit: 'RRU',
      usdPerMillion: perMillion(readUnits, prices.dynamodbReadUnit.usd),
    },
    {
      item: `KMS: ${flow.counts.keys.generate.toFixed(2)} GenerateDataKey + ${flow.counts.keys.unwrap.toFixed(2)} Decrypt (data keys kept per instance)`,
      perDeposit: kms,
      unit: 'request',
      usdPerMillion: perMillion(kms, prices.kmsRequest.usd),
    },
    ...callerLines(flow, reads),
  ];
}

/** The caller's reads of its deposit: the API request, the function and its GetItem, per read. */
function callerLines(flow: Flow, reads: number): CostLine[] {
  if (reads === 0) return [];
  const readings = routesOf(flow, true);
  const meanMs = readings.reduce((sum, [, route]) => sum + route.meanMs * route.count, 0) / reads;
  const [path] = readings[0] ?? ['/v1/deposits/get'];
  const perRead = (line: CostLine): CostLine => ({
    ...line,
    item: `caller's reads (${reads} in this run), each: ${line.item}`,
    perDeposit: line.perDeposit / reads,
    usdPerMillion: line.usdPerMillion / reads,
    caller: true,
  });
  return [
    {
      item: 'API Gateway HTTP API: requests',
      perDeposit: reads,
      unit: 'request',
      usdPerMillion: perMillion(reads, prices.httpApiRequest.usd),
    },
    ...lambdaLines('api get', handlerOfRoute(path), reads, meanMs),
    {
      item: 'DynamoDB on-demand: read units',
      perDeposit: reads,
      unit: 'RRU',
      usdPerMillion: perMillion(reads, prices.dynamodbReadUnit.usd),
    },
    logLine(reads),
  ].map(perRead);
}

function logLine(invocations: number): CostLine {
  const gb = (invocations * logBytesPerInvocation) / 1024 ** 3;
  return {
    item: `CloudWatch Logs: ${logBytesPerInvocation} B per invocation (estimate)`,
    perDeposit: gb,
    unit: 'GB',
    usdPerMillion: perMillion(gb, prices.logsIngestedGb.usd),
  };
}

/** This design: steps chained by SQS, cool-downs by Scheduler. */
export function queueDesignCost(flow: Flow): CostLine[] {
  const steps = Object.entries(flow.counts.invocations).flatMap(([queue, { count, meanMs }]) => {
    const handler = handlerOfQueue(queue);
    return handler ? lambdaLines(`step ${queue}`, handler, count, meanMs) : [];
  });
  const sends = Object.entries(flow.counts.aws)
    .filter(([key]) => key.startsWith('SQS Send'))
    .reduce((sum, [, count]) => sum + count.requests, 0);
  const sqs = sends + flow.counts.polling.receives + flow.counts.polling.deletes;
  const schedules = flow.counts.aws['Scheduler CreateSchedule']?.requests ?? 0;
  const invocations =
    ownRequests(flow) + Object.values(flow.counts.invocations).reduce((sum, step) => sum + step.count, 0);
  return [
    ...sharedLines(flow),
    ...steps,
    {
      item: `SQS: ${sends.toFixed(1)} sends + ${flow.counts.polling.receives.toFixed(1)} receives + ${flow.counts.polling.deletes.toFixed(1)} deletes`,
      perDeposit: sqs,
      unit: 'request',
      usdPerMillion: perMillion(sqs, prices.sqsRequest.usd),
    },
    {
      item: 'EventBridge Scheduler: one-shot wake-ups',
      perDeposit: schedules,
      unit: 'invocation',
      usdPerMillion: perMillion(schedules, prices.schedulerInvocation.usd),
    },
    logLine(invocations),
  ];
}

/**
 * The same flow as a Step Functions Standard workflow: each step a Task invoking the same function
 * (no SQS between them), each followed by a Choice on its outcome, one Succeed at the end, a Wait
 * state instead of a schedule: 2 transitions per step run, plus 1, plus 1 per wait.
 */
export function stepFunctionsCost(flow: Flow): { transitions: number; lines: CostLine[] } {
  const stepRuns = Object.values(flow.counts.invocations).reduce((sum, step) => sum + step.count, 0);
  const waits = flow.counts.aws['Scheduler CreateSchedule']?.requests ?? 0;
  const transitions = 2 * stepRuns + 1 + waits;
  const steps = Object.entries(flow.counts.invocations).flatMap(([queue, { count, meanMs }]) => {
    const handler = handlerOfQueue(queue);
    return handler ? lambdaLines(`step ${queue}`, handler, count, meanMs) : [];
  });
  const invocations = ownRequests(flow) + stepRuns;
  return {
    transitions,
    lines: [
      ...sharedLines(flow),
      ...steps,
      {
        item: 'Step Functions Standard: state transitions',
        perDeposit: transitions,
        unit: 'transition',
        usdPerMillion: perMillion(transitions, prices.stepFunctionsTransition.usd),
      },
      logLine(invocations),
    ],
  };
}

/** The deposit's own cost: the caller's reads left out. */
export const total = (lines: CostLine[]) =>
  lines.filter((line) => !line.caller).reduce((sum, line) => sum + line.usdPerMillion, 0);
/** What one read of the caller costs, per million reads. */
export const callerReadTotal = (lines: CostLine[]) =>
  lines.filter((line) => line.caller).reduce((sum, line) => sum + line.usdPerMillion, 0);

export function costTable(title: string, lines: CostLine[]): string[] {
  const row = (line: CostLine) =>
    `  ${line.item.padEnd(58)} ${line.perDeposit.toFixed(line.perDeposit < 0.01 ? 8 : 2).padStart(12)} ${line.unit.padEnd(10)} ${line.usdPerMillion.toFixed(2).padStart(8)} USD`;
  const caller = lines.filter((line) => line.caller);
  return [
    title,
    ...lines.filter((line) => !line.caller).map(row),
    `  ${'total per million deposits'.padEnd(58)} ${''.padStart(12)} ${''.padEnd(10)} ${total(lines).toFixed(2).padStart(8)} USD`,
    ...(caller.length > 0
      ? [
          ...caller.map(row),
          `  ${"apart: the caller's reads, per million reads".padEnd(58)} ${''.padStart(12)} ${''.padEnd(10)} ${callerReadTotal(lines).toFixed(2).padStart(8)} USD`,
        ]
      : []),
  ];
}
