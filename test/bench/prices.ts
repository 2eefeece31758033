/**
 * The one price table of the cost model (test/bench/cost.ts): AWS on-demand list prices of one
 * region, each with the page it comes from. These are the prices as published on those pages as of
 * mid-2025 (after DynamoDB's on-demand price cut of 2024-11-01), written down from memory of those
 * pages: the machine that wrote them has no internet. Check them against the pages before quoting
 * the cost, and change them here only. Free tiers are left out (a million deposits a month is past
 * most of them).
 */
export const priceRegion = 'us-east-1 (N. Virginia)';
export const pricesAsOf = '2025-06 (list prices as remembered, not fetched: no internet here)';

export const prices = {
  lambdaRequest: {
    usd: 0.2 / 1e6,
    unit: 'request',
    source: 'https://aws.amazon.com/lambda/pricing/ (requests: $0.20 per 1M)',
  },
  lambdaArmGbSecond: {
    usd: 0.0000133334,
    unit: 'GB-second',
    source: 'https://aws.amazon.com/lambda/pricing/ (Arm, first 6 billion GB-s a month: $0.0000133334)',
  },
  dynamodbWriteUnit: {
    usd: 0.625 / 1e6,
    unit: 'write request unit',
    source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/ (on-demand: $0.625 per million WRU)',
  },
  dynamodbReadUnit: {
    usd: 0.125 / 1e6,
    unit: 'read request unit',
    source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/ (on-demand: $0.125 per million RRU)',
  },
  sqsRequest: {
    usd: 0.4 / 1e6,
    unit: 'request',
    source:
      'https://aws.amazon.com/sqs/pricing/ (standard queue, past the first million: $0.40 per 1M; each 64 KB a request)',
  },
  schedulerInvocation: {
    usd: 1 / 1e6,
    unit: 'scheduled invocation',
    source:
      'https://aws.amazon.com/eventbridge/pricing/ (Scheduler: $1.00 per million invocations after 14M free; its API calls are not charged)',
  },
  kmsRequest: {
    usd: 0.03 / 1e4,
    unit: 'request',
    source: 'https://aws.amazon.com/kms/pricing/ (symmetric requests: $0.03 per 10,000)',
  },
  httpApiRequest: {
    usd: 1 / 1e6,
    unit: 'request',
    source: 'https://aws.amazon.com/api-gateway/pricing/ (HTTP APIs, first 300M a month: $1.00 per million)',
  },
  stepFunctionsTransition: {
    usd: 0.025 / 1e3,
    unit: 'state transition',
    source: 'https://aws.amazon.com/step-functions/pricing/ (Standard: $0.025 per 1,000 state transitions)',
  },
  logsIngestedGb: {
    usd: 0.5,
    unit: 'GB ingested',
    source: 'https://aws.amazon.com/cloudwatch/pricing/ (Logs, standard class: $0.50 per GB ingested)',
  },
} as const;

/**
 * Log bytes per Lambda invocation: the platform's START, END and REPORT lines (about 0.4 KB; an
 * estimate, the handlers' own logs at INFO come on top). DynamoDB Streams read by a Lambda trigger
 * are free (same DynamoDB pricing page), so the outbox relay's reads cost nothing.
 */
export const logBytesPerInvocation = 400;
