/**
 * The webhooks check of the audit: every final state reached the receiver, signed, with its
 * reference or failure type; no deposit heard to end both done and failed (but one an operator
 * resolved done after its outcome was unknown, heard failed first); every deposit cooling
 * down heard of it; and every delivery's signature verified.
 */
import type { AuditScope } from './audit.ts';
import type { WaitingDeposit } from './audit-states.ts';
import type { Delivery } from './clients.ts';

export function checkWebhooks(
  { input, items, name, finding, failures }: AuditScope,
  waiting: WaitingDeposit[],
) {
  const byDeposit = new Map<string, Delivery[]>();
  let unverified = 0;
  for (const delivery of input.deliveries) {
    if (!delivery.verified) unverified += 1;
    byDeposit.set(delivery.depositId, [...(byDeposit.get(delivery.depositId) ?? []), delivery]);
  }
  const unheard: string[] = [];
  const twoEndings: string[] = [];
  const unheardWait: string[] = [];
  let finalsHeard = 0;
  let finals = 0;
  for (const run of input.runs) {
    const item = run.id ? items.get(run.id) : undefined;
    if (!item || !run.id) continue;
    const delivered = (byDeposit.get(run.id) ?? []).filter((delivery) => delivery.verified);
    if (item.status === 'done' || item.status === 'failed') {
      finals += 1;
      const type = item.status === 'done' ? 'deposit.done' : 'deposit.failed';
      const other = item.status === 'done' ? 'deposit.failed' : 'deposit.done';
      const heard = delivered.filter(
        (delivery) =>
          delivery.type === type &&
          (item.status === 'done'
            ? delivery.data.reference === item.reference
            : delivery.data.type === item.failure?.type),
      );
      if (heard.length > 0) finalsHeard += 1;
      else {
        const note = input.notes?.get(run.id);
        unheard.push(`${name(run)} ${item.status} ${item.failure?.type ?? ''}${note ? ` (${note})` : ''}`);
      }
      // A deposit an operator resolved done was heard to fail first (its outcome unknown): by design.
      const resolvedDone = run.resolved?.outcome === 'done' && item.status === 'done';
      if (!resolvedDone && delivered.some((delivery) => delivery.type === other)) twoEndings.push(name(run));
    }
  }
  for (const { run, item } of waiting) {
    if (item.step !== 'wait-cooldown' || !run.id) continue;
    const heard = (byDeposit.get(run.id) ?? []).some((d) => d.verified && d.type === 'deposit.cooling_down');
    if (!heard) unheardWait.push(name(run));
  }
  finding('final states that never reached the webhook receiver (verified)', unheard);
  finding('deposits the receiver heard end both done and failed', twoEndings);
  finding('deposits cooling down whose caller never heard of it', unheardWait);
  if (unverified > 0) failures.push(`webhook deliveries whose signature did not verify: ${unverified}`);
  return {
    deliveries: input.deliveries.length,
    distinctEvents: new Set(input.deliveries.map((delivery) => delivery.id)).size,
    unverified,
    finalStatesHeard: `${finalsHeard}/${finals}`,
  };
}
