/**
 * In-memory fakes of the ports a step reaches besides the deposits table (`deposit-fakes.ts`): the
 * step queues and schedules (only for the steps given, as a handler's adapters), schedule deletions,
 * the credential vault, the caller's events, the transitions' metric, and the scripted provider.
 * They record what crossed them, so tests assess what a step did.
 */

import { eventToRelay } from '#shared/deposits/background/outbox';
import type { WorkStep } from '#shared/deposits/model/deposit';
import type { DepositEvent } from '#shared/deposits/model/events';
import type { StepMessageTo } from '#shared/deposits/model/messages';
import type {
  DepositEvents,
  DepositObserver,
  StepQueues,
  WakeCancels,
  WakeScheduler,
} from '#shared/deposits/ports/messaging';
import type {
  CredentialOpener,
  CredentialSealer,
  Provider,
  SealPurpose,
} from '#shared/deposits/ports/provider';
import type { FakeDepositsTable } from './deposit-fakes.ts';

const copy = <T>(value: T): T => structuredClone(value);

export interface Sent<S extends WorkStep> {
  message: StepMessageTo<S>;
  delaySeconds: number;
}

/** Step queues that take messages only for the steps given, as a handler's SQS adapter does. */
export class FakeQueues<S extends WorkStep> implements StepQueues<S> {
  readonly sent: Sent<S>[] = [];

  constructor(private readonly steps: readonly S[]) {}

  async send(message: StepMessageTo<S>, delaySeconds = 0): Promise<void> {
    if (!this.steps.includes(message.step)) throw new Error(`no queue for ${message.step} here`);
    this.sent.push({ message: copy(message), delaySeconds });
  }
}

/** One-shot schedules, idempotent per name, only to the steps given. */
export class FakeScheduler<S extends WorkStep> implements WakeScheduler<S> {
  readonly schedules = new Map<string, { at: number; message: StepMessageTo<S> }>();

  constructor(private readonly steps: readonly S[]) {}

  async scheduleAt(name: string, at: Date, message: StepMessageTo<S>): Promise<void> {
    if (!this.steps.includes(message.step)) throw new Error(`no schedule target for ${message.step} here`);
    if (!this.schedules.has(name)) this.schedules.set(name, { at: at.getTime(), message: copy(message) });
  }
}

/** Deletions of wake-up schedules, recorded; with a scheduler, its schedules of those names go. */
export class FakeWakeCancels implements WakeCancels {
  readonly cancelled: string[] = [];

  constructor(private readonly scheduler?: { schedules: Map<string, unknown> }) {}

  async cancel(names: readonly string[]): Promise<void> {
    for (const name of names) {
      this.cancelled.push(name);
      this.scheduler?.schedules.delete(name);
    }
  }
}

/** Sealing that is visibly not plaintext and bound to its purpose and deposit, like the vault's. */
export class FakeVault implements CredentialSealer, CredentialOpener {
  async seal(purpose: SealPurpose, depositId: string, secret: unknown): Promise<string> {
    return `sealed:${purpose}:${depositId}:${Buffer.from(JSON.stringify(secret)).toString('base64')}`;
  }

  async open<T>(purpose: SealPurpose, depositId: string, sealed: string): Promise<T> {
    const [tag, sealedAs, owner, body] = sealed.split(':');
    if (tag !== 'sealed' || sealedAs !== purpose || owner !== depositId || body === undefined) {
      throw new Error('sealed credentials belong to another deposit, another purpose, or another key');
    }
    return JSON.parse(Buffer.from(body, 'base64').toString('utf8')) as T;
  }
}

/**
 * What the caller hears: the events the deposit writes carry (their outbox), in the order written,
 * as the table's stream and the outbox relay deliver them.
 */
export class StreamedEvents {
  constructor(private readonly table: FakeDepositsTable) {}

  get published(): DepositEvent[] {
    return this.table.writes.flatMap((deposit) => {
      const event = eventToRelay(deposit);
      return event ? [event] : [];
    });
  }

  types(): string[] {
    return this.published.map((event) => event.type);
  }
}

/** The webhook queue as the relay sees it. */
export class FakeEventQueue implements DepositEvents {
  readonly published: DepositEvent[] = [];

  async publish(event: DepositEvent): Promise<void> {
    this.published.push(copy(event));
  }
}

export class RecordingObserver implements DepositObserver {
  readonly transitions: string[] = [];

  transitioned(status: string, step: string): void {
    this.transitions.push(`${status}/${step}`);
  }
}

type ProviderMethod = keyof Provider;
type Script = (...args: unknown[]) => unknown;

/**
 * The provider, scripted per operation: each call takes the next scripted answer (a value to
 * return, an error to throw, or a function that acts while the call runs and gives the answer); an
 * unscripted call fails the test. Calls are recorded.
 */
export class FakeProvider {
  readonly calls: { method: ProviderMethod; args: unknown[] }[] = [];
  private readonly scripts = new Map<ProviderMethod, Script[]>();

  answer(method: ProviderMethod, ...answers: unknown[]): this {
    const queue = this.scripts.get(method) ?? [];
    for (const answer of answers) {
      queue.push(() => {
        if (answer instanceof Error) throw answer;
        return typeof answer === 'function' ? answer() : answer;
      });
    }
    this.scripts.set(method, queue);
    return this;
  }

  callsOf(method: ProviderMethod) {
    return this.calls.filter((call) => call.method === method).map((call) => call.args);
  }

  private next(method: ProviderMethod, args: unknown[]) {
    this.calls.push({ method, args: copy(args) });
    const script = this.scripts.get(method)?.shift();
    if (!script) throw new Error(`unexpected provider call ${method}`);
    return Promise.resolve(script(...args));
  }

  readonly port = {
    getMetadata: (...args: unknown[]) => this.next('getMetadata', args),
    listBeneficiaries: (...args: unknown[]) => this.next('listBeneficiaries', args),
    createBeneficiary: (...args: unknown[]) => this.next('createBeneficiary', args),
    createTransfer: (...args: unknown[]) => this.next('createTransfer', args),
    createAutoflowTransfer: (...args: unknown[]) => this.next('createAutoflowTransfer', args),
    getOperation: (...args: unknown[]) => this.next('getOperation', args),
  } as unknown as Provider;
}
