/**
 * The DynamoDB faults of a chaos run's plan: per user, the kinds its connection's DynamoDB calls meet
 * and on how many calls (`infra/local/dynamodb-faults.ts`: answered by the SDK client's middleware in
 * the step workers' processes, inside the SDK's retries). Chosen from the seed, on a random stream of
 * their own, so the rest of a seed's plan is as it was without them; every kind is met even in a
 * small run: until each has been planned for `COVERAGE` users, every user it can reach gets one.
 *
 * A rule goes off on each attempt the SDK makes of a call (`DYNAMODB_MAX_ATTEMPTS` of one call):
 *   - a throttling or an internal error on fewer calls than that is retried away by the SDK; on as
 *     many, the step's try fails with it, and the queue brings the message back;
 *   - a transaction conflict is not retried by the SDK: each fails a try of the step;
 *   - a lost answer once: the SDK's retry is what the step hears (its condition may fail against the
 *     write that landed); on every attempt: the step sees the timeout, its write landed.
 */
import { type DynamoDbFaultKind, dynamoDbFaultKinds } from '#infra/local/dynamodb-faults';
import { DYNAMODB_MAX_ATTEMPTS } from '#shared/adapters/clients';
import type { Bank, PlannedUser } from './plan.ts';
import { type Random, randomStream } from './random.ts';

export interface DynamoDbFault {
  kind: DynamoDbFaultKind;
  /** Calls it goes off on (each attempt of the SDK's is one). */
  times: number;
}

/** Users with DynamoDB faults, once every kind has been met. */
const SHARE = 0.15;
/** Users each kind is planned for before the plan picks kinds at random: once retried away, once seen. */
const COVERAGE = 2;
/** Of the faults planned at random, those on every attempt of a call (the step sees them). */
const SEEN_SHARE = 0.4;

/**
 * Where a kind can go off: a claim's writes only where the wallet is registered as a beneficiary; a
 * shared wake-up's only for a user whose payment source cools down (its deposits follow it); the
 * others on any call of the connection's.
 */
function applies(kind: DynamoDbFaultKind, bank: Bank, withSource: boolean): boolean {
  if (kind === 'lost-claim-answer') return bank.beneficiaries;
  if (kind === 'lost-wake-answer') return withSource && bank.beneficiaries && bank.coolDownMs > 0;
  return true;
}

function timesFor(random: Random, kind: DynamoDbFaultKind, seen: boolean): number {
  if (kind === 'transaction-conflict') return random.int(1, 2);
  if (kind.startsWith('lost-')) return seen ? DYNAMODB_MAX_ATTEMPTS : 1;
  return seen ? DYNAMODB_MAX_ATTEMPTS : random.int(1, DYNAMODB_MAX_ATTEMPTS - 1);
}

/**
 * Gives each user of the plan its DynamoDB faults (none to a user whose source must fail: its bank is
 * down for it, and that fault comes alone).
 */
export function planDynamoDbFaults(seed: number, users: PlannedUser[]) {
  // Each kind, and how many more users it is still to be planned for.
  const coverage = new Map<DynamoDbFaultKind, number>(dynamoDbFaultKinds.map((kind) => [kind, COVERAGE]));
  for (const user of users) {
    if (user.source?.fails) continue;
    const random = randomStream(seed, 'dynamodb-faults', user.index);
    const kinds = dynamoDbFaultKinds.filter((kind) => applies(kind, user.bank, user.source !== undefined));
    const unmet = kinds.some((kind) => coverage.has(kind));
    if (!unmet && !random.chance(SHARE)) continue;
    const faults: DynamoDbFault[] = [];
    for (let n = random.int(1, 2); n > 0; n -= 1) {
      const fresh = kinds.filter(
        (kind) => coverage.has(kind) && !faults.some((fault) => fault.kind === kind),
      );
      const kind = fresh.length > 0 ? random.pick(fresh) : random.pick(kinds);
      const left = coverage.get(kind);
      if (left !== undefined) {
        if (left <= 1) coverage.delete(kind);
        else coverage.set(kind, left - 1);
      }
      // While it is still to be met: first retried away (or heard through the retry), then seen.
      const seen = left === undefined ? random.chance(SEEN_SHARE) : left <= 1;
      faults.push({ kind, times: timesFor(random, kind, seen) });
    }
    user.dynamoDbFaults = faults;
  }
}
