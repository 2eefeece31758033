/**
 * Outbox relay faults, for the local stack only: an armed deposit's next event cannot be relayed to
 * the notify queue (each of the relay's tries fails), so the relay sets it aside whole in its DLQ,
 * where it waits for an operator's redrive (docs/operating.md). Production code carries no seam for
 * it: the notify queue's and the relay DLQ's adapters are wrapped from outside, on their prototypes,
 * when the local stack starts. Inert until a test arms a deposit (`POST /_local/relay-faults`).
 *
 * A failing event stays failing until the relay has set it aside; from then on it goes through, so
 * the relay's re-relay of the redriven record (`functions/notifier/relay-again.ts`) delivers it.
 */
import { NotificationQueue } from '#shared/adapters/notification-queue';
import { OutboxRelayDlq } from '#shared/adapters/outbox-relay-dlq';
import type { UnrelayedRecord } from '#shared/deposits/background/outbox';
import type { DepositEvent } from '#shared/deposits/model/events';

/** A relay that cannot reach the notify queue, as the SDK would throw it. */
export class RelayFault extends Error {
  constructor(eventId: string) {
    super(`local relay fault: the notify queue refused event ${eventId}`);
    this.name = 'RelayFault';
  }
}

class RelayFaults {
  /** Deposits whose next event fails to relay. */
  private readonly armed = new Set<string>();
  /** Events failing now, by id, until the relay sets them aside. */
  private readonly failing = new Set<string>();
  /** The events set aside in the relay's DLQ because of a fault armed here, and how often they failed. */
  private readonly setAside: { eventId: string; depositId: string; failures: number }[] = [];
  private readonly failures = new Map<string, number>();
  private installed = false;

  arm(depositId: string) {
    this.armed.add(depositId);
  }

  report() {
    return { armed: [...this.armed], failing: [...this.failing], setAside: [...this.setAside] };
  }

  clear() {
    this.armed.clear();
    this.failing.clear();
    this.failures.clear();
    this.setAside.length = 0;
  }

  /** Wraps the adapters, once per process. */
  install() {
    if (this.installed) return;
    this.installed = true;
    const publish = NotificationQueue.prototype.publish;
    const faults = this;
    NotificationQueue.prototype.publish = async function (this: NotificationQueue, event: DepositEvent) {
      if (faults.armed.delete(event.depositId)) faults.failing.add(event.id);
      if (faults.failing.has(event.id)) {
        faults.failures.set(event.id, (faults.failures.get(event.id) ?? 0) + 1);
        throw new RelayFault(event.id);
      }
      return publish.call(this, event);
    };
    const setAside = OutboxRelayDlq.prototype.setAside;
    OutboxRelayDlq.prototype.setAside = async function (this: OutboxRelayDlq, record: UnrelayedRecord) {
      await setAside.call(this, record);
      if (!faults.failing.delete(record.event.id)) return;
      faults.setAside.push({
        eventId: record.event.id,
        depositId: record.depositId,
        failures: faults.failures.get(record.event.id) ?? 0,
      });
    };
  }
}

export const relayFaults = new RelayFaults();

export function installRelayFaults() {
  relayFaults.install();
}
