/**
 * The crash points' wrappers (`crash-points.ts`), for the local stack only: installed from outside
 * on the prototypes of the adapters every step writes through and of the provider client, once per
 * process. Around each write, and each provider call, a step may die before it or after it. They also
 * note, as evidence for a chaos run's audit, which deposits have a transfer attempt on record without
 * its outcome, and which transfer submissions answered nothing readable.
 */

import { ConnectionLeaseItems } from '#shared/adapters/connection-lease-items';
import { DepositItems } from '#shared/adapters/deposit-items';
import { BeneficiaryClaimItems } from '#shared/adapters/deposits-table';
import { EventBridgeWakeScheduler } from '#shared/adapters/scheduler';
import { SharedWakeItems } from '#shared/adapters/shared-wakes';
import { SqsStepQueues } from '#shared/adapters/step-queues';
import type { BeneficiaryClaim, Deposit, DepositStep } from '#shared/deposits/model/deposit';
import type { StepMessage } from '#shared/deposits/model/messages';
import { ProviderClient, type ProviderCredentials } from '#shared/provider/client';
import { ProviderUnknownOutcome } from '#shared/provider/outcomes';
import { configuredOwnerDigests } from '#shared/wiring/owner-digests';
import {
  anyArmed,
  type CrashPoint,
  check,
  isOpen,
  lastOpenedOf,
  noteAttempt,
  noteLostAnswer,
  take,
} from './crash-points.ts';

/** The provider's operations, by the step that calls them; `acts` if the call changes something. */
const providerCalls = {
  getMetadata: { step: 'resolve-bank', acts: true },
  listBeneficiaries: { step: 'ensure-beneficiary', acts: false },
  createBeneficiary: { step: 'ensure-beneficiary', acts: true },
  createTransfer: { step: 'transfer', acts: true },
  createAutoflowTransfer: { step: 'transfer', acts: true },
  getOperation: { step: 'reconcile', acts: false },
} as const;
const transferCalls = new Set(['createTransfer', 'createAutoflowTransfer']);

/**
 * The step each deposit is at as this process last read or wrote it, and the deposit each
 * connection's last was: a write, a send, a call is "in" that step (a send that follows a step's
 * move is in the step it moved to).
 */
const stepOf = new Map<string, DepositStep>();
const ownerOf = new Map<string, string>();
const lastOfOwner = new Map<string, { step: DepositStep; depositId: string }>();

function seen(deposit: Deposit) {
  stepOf.set(deposit.id, deposit.step);
  ownerOf.set(deposit.id, deposit.ownerKey);
  lastOfOwner.set(deposit.ownerKey, { step: deposit.step, depositId: deposit.id });
}

/** Where a write happens: the connection, and the deposit (and so the step) it is for. */
interface Place {
  ownerKey: string | undefined;
  depositId?: string | undefined;
}

type Method = (...args: unknown[]) => Promise<unknown>;

/** Wraps `name` on `prototype` with a death before it and after it (of the kind `point`). */
function aroundWrite(prototype: object, name: string, kind: string, place: (args: unknown[]) => Place) {
  const methods = prototype as Record<string, Method>;
  const original = methods[name];
  if (typeof original !== 'function') throw new Error(`${kind}: no method ${name} to wrap`);
  methods[name] = async function (this: unknown, ...args: unknown[]) {
    if (!anyArmed()) return original.apply(this, args);
    const { ownerKey, depositId: named } = place(args);
    if (!ownerKey) return original.apply(this, args);
    const last = lastOfOwner.get(ownerKey);
    const depositId = named ?? last?.depositId;
    const step = (depositId && stepOf.get(depositId)) || last?.step || 'unknown';
    await check(`before-${kind}` as CrashPoint, step, ownerKey, depositId);
    const answer = await original.apply(this, args);
    await check(`after-${kind}` as CrashPoint, step, ownerKey, depositId);
    return answer;
  };
}

let installed = false;

/** Wraps the adapters and the provider client of this process; once. */
export function installCrashPoints() {
  if (installed) return;
  installed = true;
  wrapDeposits();
  const byClaim = (args: unknown[]) => ({ ownerKey: (args[0] as BeneficiaryClaim).ownerKey });
  const byOwner = (args: unknown[]) => ({ ownerKey: args[0] as string });
  for (const name of ['claim', 'update'])
    aroundWrite(BeneficiaryClaimItems.prototype, name, 'claim-write', byClaim);
  for (const name of ['markUsed', 'forget', 'release'])
    aroundWrite(BeneficiaryClaimItems.prototype, name, 'claim-write', byOwner);
  for (const name of ['acquire', 'release', 'wait', 'wake'])
    aroundWrite(ConnectionLeaseItems.prototype, name, 'lease-write', byOwner);
  for (const name of ['arm', 'follow', 'take'])
    aroundWrite(SharedWakeItems.prototype, name, 'wake-write', byOwner);
  const byMessage = (message: unknown) => {
    const depositId = (message as StepMessage).depositId;
    return { ownerKey: ownerOf.get(depositId), depositId };
  };
  aroundWrite(EventBridgeWakeScheduler.prototype, 'scheduleAt', 'schedule', (args) => byMessage(args[2]));
  aroundWrite(SqsStepQueues.prototype, 'send', 'queue-send', (args) => byMessage(args[0]));
  wrapProvider();
}

/** Whether the deposit, as written or read, has a transfer attempt on record and no outcome of it. */
function attemptOpenIn(deposit: Deposit): boolean {
  return (
    deposit.step === 'transfer' &&
    deposit.transfer?.attempt !== undefined &&
    deposit.transfer.operationId === undefined
  );
}

/** The deposits whose write this process has sent and not yet heard the answer of. */
const writing = new Set<string>();
/** The version of each deposit's write that opened its transfer attempt here. */
const openedAt = new Map<string, number>();

function wrapDeposits() {
  const records = DepositItems.prototype;
  const get = records.get;
  records.get = async function (this: DepositItems, depositId: string) {
    const deposit = await get.call(this, depositId);
    if (deposit) seen(deposit);
    // Read without an open attempt at a later version than the attempt's (another process recorded
    // its outcome): no longer open here. A read older than the attempt (sent before its write landed,
    // answered after it), or one while this process's own write is on its way, closes nothing.
    const stale =
      deposit &&
      isOpen(deposit.id) &&
      !attemptOpenIn(deposit) &&
      !writing.has(deposit.id) &&
      deposit.version > (openedAt.get(deposit.id) ?? Number.NEGATIVE_INFINITY);
    if (deposit && stale) noteAttempt(deposit.id, deposit.ownerKey, false);
    return deposit;
  };
  const save = records.save;
  records.save = async function (this: DepositItems, deposit: Deposit, expectedVersion: number) {
    const step = stepOf.get(deposit.id) ?? deposit.step;
    await check('before-state-write', step, deposit.ownerKey, deposit.id);
    // An attempt is open from the moment its write is sent: a process that dies while the write is
    // in flight may have recorded it (the write lands, nobody hears), so its transfer may be unknown.
    const open = attemptOpenIn(deposit);
    const wasOpen = isOpen(deposit.id);
    if (open) {
      noteAttempt(deposit.id, deposit.ownerKey, true);
      openedAt.set(deposit.id, deposit.version);
    }
    writing.add(deposit.id);
    let saved = await save.call(this, deposit, expectedVersion).finally(() => writing.delete(deposit.id));
    if (saved) {
      seen(deposit);
      noteAttempt(deposit.id, deposit.ownerKey, open);
    } else if (!wasOpen) noteAttempt(deposit.id, deposit.ownerKey, false);
    // The answer of the landed write is lost: the retry of the same write is what the step hears.
    if (saved && take('lost-write-answer', step, deposit.ownerKey)) {
      saved = await save.call(this, deposit, expectedVersion);
    }
    if (saved) await check('after-state-write', step, deposit.ownerKey, deposit.id);
    return saved;
  };
}

function wrapProvider() {
  const client = ProviderClient.prototype as unknown as Record<
    string,
    (credentials: ProviderCredentials, ...rest: unknown[]) => Promise<unknown>
  >;
  for (const [name, { step, acts }] of Object.entries(providerCalls)) {
    const call = client[name];
    if (!call) throw new Error(`ProviderClient has no ${name}`);
    client[name] = async function (this: ProviderClient, credentials, ...rest) {
      // The deposits' own key of the connection (the stack's owner key), which the rules name.
      const ownerKey = configuredOwnerDigests().of(credentials.accessToken);
      const depositId = lastOfOwner.get(ownerKey)?.depositId;
      // Taken before any wait: the transfer's own deposit (`lastOpenedOf`).
      const submitting = transferCalls.has(name) ? lastOpenedOf(ownerKey) : undefined;
      await check('before-provider-call', step, ownerKey, depositId);
      let answer: unknown;
      try {
        answer = await call.call(this, credentials, ...rest);
      } catch (error) {
        if (transferCalls.has(name) && error instanceof ProviderUnknownOutcome) {
          noteLostAnswer(ownerKey, submitting, error.reason);
        }
        throw error;
      }
      if (acts) await check('after-provider-call', step, ownerKey, depositId);
      return answer;
    };
  }
}
