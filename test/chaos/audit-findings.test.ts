/**
 * The chaos audit bites: each broken invariant, planted in an otherwise clean outcome, is a finding
 * that names its deposit. (Pure: no stack.)
 */
import { describe, expect, it } from 'vitest';
import { type AuditInput, audit, type DepositRun, type SourceRun } from './audit.ts';
import {
  cleanOutcome,
  connection,
  creation,
  decoyedAndAmbiguous,
  unknownOutcome,
  wallet,
  walletReceiver,
  withSource,
} from './audit-world.ts';
import type { Delivery, TableItem } from './clients.ts';
import { decoyBeneficiary } from './decoys.ts';
import type { PlannedUser } from './plan.ts';

describe('the chaos audit', () => {
  it.for([
    {
      broken: 'an unknown transfer outcome without evidence of its own',
      plant: unknownOutcome,
      finding: /unknown transfer outcomes without evidence.*dep_1/,
    },
    {
      broken: 'a lost transfer answer that names a deposit of a known outcome (another submitted it)',
      plant: (input: AuditInput) => {
        unknownOutcome(input);
        input.crashes.lostAnswers.push({ ownerKey: 'owner', depositId: 'dep_0', reason: 'timeout', at: 0 });
      },
      finding: /lost transfer answers naming a deposit whose outcome was known.*dep_0 \(timeout\)/,
    },
    {
      broken: 'a planned crash point that never went off',
      plant: (input: AuditInput) => {
        (input.plan.users[0] as PlannedUser).crashes.push({ point: 'after-wake-write', times: 1 });
      },
      finding: /crash points the plan armed that never went off.*after-wake-write/,
    },
    {
      broken: 'a planned DynamoDB fault kind that never went off',
      plant: (input: AuditInput) => {
        (input.plan.users[0] as PlannedUser).dynamoDbFaults = [{ kind: 'lost-wake-answer', times: 1 }];
        input.dynamoDbFaults = { fired: { throttling: 1 }, armed: 1, inAttempts: [] };
      },
      finding: /DynamoDB fault kinds the plan armed that never went off.*lost-wake-answer/,
    },
    {
      broken: 'a planned provider fault kind that never went off',
      plant: (input: AuditInput) => {
        (input.plan.users[0] as PlannedUser).providerFaults.push({
          kind: 'list-5xx',
          rule: { path: '/v1/payment/beneficiaries/get', outcome: 'error', status: 500, times: 2 },
        });
        input.ledgers.get(0)?.faults?.push({ times: 2, remaining: 2 });
      },
      finding: /provider fault kinds the plan set that never went off.*list-5xx/,
    },
    {
      broken: "a transfer to another receiver than the wallet's account: a decoy",
      plant: (input: AuditInput) => {
        decoyedAndAmbiguous(input);
        (input.items[1] as TableItem).history = [
          {
            step: 'transfer',
            status: 'initialized',
            at: 0,
            note: 'the bank says the beneficiary is gone: registering it again',
          },
        ];
        const decoy = decoyBeneficiary('iban', wallet);
        input.ledgers.get(0)?.transfers.push({
          reference: 'TRF9',
          amount: 30,
          currency: 'AED',
          createdAt: '',
          receiver: {
            beneficiaryID: 'ben_decoy_1',
            name: decoy.name,
            iban: decoy.iban,
            swiftCode: decoy.swiftCode,
          },
        });
        const account = input.ledgers.get(0)?.accounts[0];
        if (account) account.balance -= 30;
      },
      finding: /transfers to another receiver than the wallet's account.*dep_1 .*TRF9.*a decoy/,
    },
    {
      broken: 'a deposit that took a decoy for the wallet’s beneficiary',
      plant: (input: AuditInput) => {
        decoyedAndAmbiguous(input);
        (input.items[0] as TableItem).beneficiaryId = 'ben_decoy_0';
      },
      finding: /took a decoy for the wallet's beneficiary.*dep_0/,
    },
    {
      broken: 'a deposit failed BENEFICIARY_AMBIGUOUS at a masked bank for a decoy alone',
      plant: decoyedAndAmbiguous,
      finding: /no injected fault explains.*dep_1 .*BENEFICIARY_AMBIGUOUS/,
    },
    {
      broken: 'a kind of decoy the plan set that no deposit met',
      plant: (input: AuditInput) => {
        decoyedAndAmbiguous(input);
        (input.items[1] as TableItem).history = [
          {
            step: 'transfer',
            status: 'initialized',
            at: 0,
            note: 'the bank says the beneficiary is gone: registering it again',
          },
        ];
        (input.items[0] as TableItem).status = 'failed';
        (input.items[0] as TableItem).failure = { type: 'CANCELLED', msg: 'cancelled' };
      },
      finding: /decoy kinds the plan set that no deposit met.*account-number/,
    },
    {
      broken: "two creations of a connection's beneficiary without a recorded reason",
      plant: (input: AuditInput) => {
        input.ledgers.get(0)?.beneficiaryCreations?.push(creation('refused', 'BENEFICIARY_ALREADY_EXISTS'));
      },
      finding: /create again without a recorded reason.*user 0 SANDBOX_BENEFICIARY: 2 creations/,
    },
    {
      broken: "a follower that waited past its source's instant and the stall time",
      plant: (input: AuditInput) => withSource(input, 60),
      finding: /waited for a source's wake-up past its instant.*dep_0/,
    },
    {
      broken: 'a payment source that never ended',
      plant: (input: AuditInput) => {
        withSource(input, 1);
        Object.assign(input.items.at(-1) as TableItem, { status: 'initialized', step: 'wait-cooldown' });
      },
      finding: /payment sources that never ended.*src_0/,
    },
    {
      broken: 'a payment source the harness failed to drive',
      plant: (input: AuditInput) => {
        withSource(input, 1);
        input.sources.at(-1)?.findings.push('the harness failed: Error: fetch failed');
      },
      finding: /the harness failed to drive as planned.*src_0.*fetch failed/,
    },
    {
      broken: 'a payment source planned to lose its schedule that never lost it',
      plant: (input: AuditInput) => {
        withSource(input, 1);
        const user = input.plan.users[0] as PlannedUser;
        user.source = { when: 'first', fails: false, idempotencyKey: 'src', losesSchedule: true };
        Object.assign(input.sources.at(-1) as SourceRun, { scheduleDeleted: false, outcome: 'stalled' });
      },
      finding: /no source lost its own schedule: source src_0 .* stalled, history:/,
    },
    {
      broken: 'a second transfer for a deposit',
      plant: (input: AuditInput) => {
        const ledger = input.ledgers.get(0);
        ledger?.transfers.push({
          reference: 'TRF9',
          amount: 25,
          currency: 'AED',
          createdAt: '',
          receiver: walletReceiver,
        });
        if (ledger?.accounts[0]) ledger.accounts[0].balance -= 25;
      },
      finding: /more than one transfer.*dep_0/,
    },
    {
      broken: 'a done deposit with no transfer',
      plant: (input: AuditInput) => {
        input.ledgers.get(0)?.transfers.splice(1, 1);
      },
      finding: /done deposits without exactly one transfer.*dep_1/,
    },
    {
      broken: 'a deposit stuck in flight',
      plant: (input: AuditInput) => {
        Object.assign(input.items[1] as TableItem, {
          status: 'initialized',
          step: 'transfer',
          reference: undefined,
        });
        input.ledgers.get(0)?.transfers.splice(1, 1);
      },
      finding: /stalled.*dep_1/,
    },
    {
      broken: 'a deposit given up at the deadline, done after it',
      plant: (input: AuditInput) => {
        (input.runs[1] as DepositRun).outcome = 'stalled';
      },
      finding: /stalled.*dep_1.* given up while done at completed/,
    },
    {
      broken: 'a failure no fault explains',
      plant: (input: AuditInput) => {
        Object.assign(input.items[0] as TableItem, {
          status: 'failed',
          failure: { type: 'STEP_FAILED', msg: 'boom' },
        });
        input.ledgers.get(0)?.transfers.splice(0, 1);
        input.deliveries[0] = {
          ...(input.deliveries[0] as Delivery),
          type: 'deposit.failed',
          data: { type: 'STEP_FAILED' },
        };
      },
      finding: /no injected fault explains.*dep_0 .*STEP_FAILED/,
    },
    {
      broken: 'a deposit done although asked a question nobody answered',
      plant: (input: AuditInput) => {
        const run = input.runs[1] as DepositRun;
        run.plan = { ...run.plan, answers: 'never' };
        run.asked = true;
      },
      finding: /done that had to fail.*dep_1/,
    },
    {
      broken: 'a final state never delivered',
      plant: (input: AuditInput) => {
        input.deliveries.pop();
      },
      finding: /never reached the webhook receiver.*dep_1/,
    },
    {
      broken: 'a delivery whose signature does not verify',
      plant: (input: AuditInput) => {
        input.deliveries.push({ ...(input.deliveries[0] as Delivery), verified: false });
      },
      finding: /did not verify: 1/,
    },
    {
      broken: 'credentials kept on a finished deposit',
      plant: (input: AuditInput) => {
        (input.items[0] as TableItem).sealedCredentials = 'AYADeJ...';
      },
      finding: /keep credentials.*dep_0/,
    },
    {
      broken: "a finished deposit's sealed credentials item left behind",
      plant: (input: AuditInput) => {
        const deposit = input.items[0] as TableItem;
        input.items.push({ pk: deposit.pk, sk: 'SEALED', sealedCredentials: 'v1.x' } as TableItem);
      },
      finding: /keep credentials.*dep_0.*its sealed credentials item/,
    },
    {
      broken: 'a user secret in a table item',
      plant: (input: AuditInput) => {
        (input.items[1] as TableItem).note = `secret ${connection.userSecret}`;
      },
      finding: /table items holding a plaintext secret.*DEPOSIT#dep_1/,
    },
    {
      broken: 'an access token in a log line',
      plant: (input: AuditInput) => {
        input.output += `{"level":"ERROR","token":"${connection.accessToken}"}\n`;
      },
      finding: /output lines holding a plaintext secret.*line 3/,
    },
    {
      broken: 'a one-time password in a log line',
      plant: (input: AuditInput) => {
        input.output += '{"answer":"123456"}\n';
      },
      finding: /output lines holding a plaintext secret.*one-time password/,
    },
  ])('finds $broken', ({ plant, finding }) => {
    const input = cleanOutcome();
    plant(input);
    const { failures } = audit(input);
    expect(failures.some((failure) => finding.test(failure))).toBe(true);
  });
});
