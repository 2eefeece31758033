/**
 * The chaos audit bites: from a clean outcome it finds nothing, and each broken invariant, planted in
 * an otherwise clean outcome, is a finding that names its deposit. (Pure: no stack.)
 */
import { describe, expect, it } from 'vitest';
import { localWallets } from '#infra/local/wallets';
import { sandboxBanks } from '#shared/sandbox/catalog';
import { type AuditInput, audit, type DepositRun, type Receiver, type SourceRun } from './audit.ts';
import type { Connection, Delivery, TableItem } from './clients.ts';
import { inLocalTime, realDelay } from './clock-jumps.ts';
import { decoyBeneficiary } from './decoys.ts';
import { banksOf, type PlannedDeposit, type PlannedUser } from './plan.ts';

const banks = banksOf(sandboxBanks.map(({ bankId, accountsMetadata }) => ({ bankId, accountsMetadata })));
const bank = banks.find((candidate) => candidate.bankId === 'SANDBOX_BENEFICIARY');
if (!bank) throw new Error('no SANDBOX_BENEFICIARY bank');
const maskedBank = banks.find((candidate) => candidate.bankId === 'SANDBOX_MASKED');
if (!maskedBank) throw new Error('no SANDBOX_MASKED bank');
const wallet = localWallets.find((candidate) => candidate.id === bank.walletAccountID);
if (!wallet) throw new Error(`no local wallet ${bank.walletAccountID}`);

/** The wallet's account as the bank records a transfer's receiver. */
const walletReceiver: Receiver = {
  beneficiaryID: 'ben_1',
  name: wallet.name,
  iban: wallet.iban,
  swiftCode: wallet.swiftCode,
};

const connection: Connection = {
  connectionID: 'conn_1',
  accessToken: `conn_1.at_${'A'.repeat(43)}`,
  userSecret: `us_${'B'.repeat(43)}`,
  accountId: 'acc_1',
  openingBalance: 100_000,
};

function planned(index: number, amountMinor: number): PlannedDeposit {
  return {
    index,
    userIndex: 0,
    idempotencyKey: `key-${index}`,
    amountMinor,
    amount: amountMinor / 100,
    belowMinimum: false,
    startDelayMs: 0,
    answers: 'answer',
    answerDelayMs: 0,
    duplicates: false,
    repeatCreate: false,
    webhookRefusals: 0,
    operatorRedrives: false,
  };
}

/** Two deposits of one user, both done, each with its one transfer, each heard. */
function cleanOutcome(): AuditInput {
  const deposits = [planned(0, 2_500), planned(1, 3_000)];
  const user: PlannedUser = {
    index: 0,
    bank: bank as PlannedUser['bank'],
    providerFaults: [],
    crashes: [],
    deposits,
  };
  const runs: DepositRun[] = deposits.map((deposit) => ({
    plan: deposit,
    id: `dep_${deposit.index}`,
    createRetries: 0,
    asked: false,
    answersSent: 0,
    answerErrors: 0,
    readErrors: 0,
    duplicateMessages: 0,
    copies: [],
    operatorRedrives: {},
    outcome: 'final',
    findings: [],
  }));
  const items: TableItem[] = deposits.map((deposit) => ({
    pk: `DEPOSIT#dep_${deposit.index}`,
    sk: 'DEPOSIT',
    id: `dep_${deposit.index}`,
    status: 'done',
    step: 'completed',
    version: 3,
    reference: `TRF${deposit.index}`,
    amountMinor: deposit.amountMinor,
    currency: 'AED',
    history: [{ step: 'completed', status: 'done', at: 0 }],
  }));
  const deliveries: Delivery[] = deposits.map((deposit) => ({
    id: `dep_${deposit.index}.v3`,
    type: 'deposit.done',
    depositId: `dep_${deposit.index}`,
    data: { reference: `TRF${deposit.index}` },
    verified: true,
  }));
  return {
    plan: { seed: 1, banks, users: [user], deposits },
    users: [{ plan: user, connection }],
    runs,
    items,
    ledgers: new Map([
      [
        0,
        {
          accounts: [{ id: 'acc_1', balance: 99_945, currency: 'AED' }],
          transfers: [
            { reference: 'TRF0', amount: 25, currency: 'AED', createdAt: '', receiver: walletReceiver },
            { reference: 'TRF1', amount: 30, currency: 'AED', createdAt: '', receiver: walletReceiver },
          ],
          faults: [],
          // The first deposit created the wallet's beneficiary; the second found it on record.
          beneficiaryCreations: [creation('created')],
        },
      ],
    ]),
    deliveries,
    beneficiaries: new Map([[0, 1]]),
    secrets: [
      'sandbox-local-app-secret',
      connection.accessToken.split('.')[1] as string,
      connection.userSecret,
    ],
    otps: ['123456'],
    output: 'chaos: a line of progress\n{"level":"WARN","message":"sandbox fault injected"}\n',
    now: 1_000_000,
    parkAfterMs: 600_000,
    scheduledDeposits: new Set(),
    sources: [],
    crashes: { fired: {}, armed: 0, deaths: [], lostAnswers: [] },
    stallAfterMs: 8_000,
  };
}

/** A call of the bank's beneficiary creation for the wallet's account, as the sandbox records it. */
function creation(outcome: 'created' | 'refused', type?: string) {
  return {
    jobID: `job_${outcome}`,
    at: '2026-01-01T00:00:00.000Z',
    iban: wallet?.iban ?? '',
    outcome,
    ...(type ? { type } : {}),
    ...(outcome === 'created' ? { beneficiaryID: 'ben_1' } : {}),
  };
}

/** Deposit 1's history holds this note (after its creation). */
function noted(input: AuditInput, note: string) {
  (input.items[1] as TableItem).history = [
    { step: 'transfer', status: 'initialized', at: 0, note },
    { step: 'completed', status: 'done', at: 1 },
  ];
}

/**
 * The user banks at SANDBOX_MASKED with both decoys registered beside the wallet's beneficiary
 * (`ben_1`), and deposit 1 failed BENEFICIARY_AMBIGUOUS, nothing moved for it, its failure heard.
 */
function decoyedAndAmbiguous(input: AuditInput) {
  const user = input.plan.users[0] as PlannedUser;
  user.bank = maskedBank as PlannedUser['bank'];
  user.decoys = ['account-number', 'iban'];
  (input.users[0] as AuditInput['users'][number]).decoys = user.decoys.map((kind, index) => ({
    kind,
    iban: decoyBeneficiary(kind, wallet as (typeof localWallets)[number]).iban,
    id: `ben_decoy_${index}`,
  }));
  Object.assign(input.items[1] as TableItem, {
    status: 'failed',
    reference: undefined,
    failure: { type: 'BENEFICIARY_AMBIGUOUS', msg: 'nothing tells them apart' },
  });
  input.ledgers.get(0)?.transfers.splice(1, 1);
  const account = input.ledgers.get(0)?.accounts[0];
  if (account) account.balance += 30;
  input.deliveries[1] = {
    ...(input.deliveries[1] as Delivery),
    type: 'deposit.failed',
    data: { type: 'BENEFICIARY_AMBIGUOUS' },
  };
}

/** Deposit 1 failed TRANSFER_OUTCOME_UNKNOWN, nothing moved for it, its failure heard. */
function unknownOutcome(input: AuditInput) {
  Object.assign(input.items[1] as TableItem, {
    status: 'failed',
    reference: undefined,
    failure: { type: 'TRANSFER_OUTCOME_UNKNOWN', msg: 'interrupted' },
  });
  input.ledgers.get(0)?.transfers.splice(1, 1);
  const account = input.ledgers.get(0)?.accounts[0];
  if (account) account.balance += 30;
  input.deliveries[1] = {
    ...(input.deliveries[1] as Delivery),
    type: 'deposit.failed',
    data: { type: 'TRANSFER_OUTCOME_UNKNOWN' },
  };
}

/** User 0 has a payment source, ready and heard; deposit 0 followed its wake-up, moving `lateS` after it. */
function withSource(input: AuditInput, lateS: number) {
  const instant = 500_000;
  (input.items[0] as TableItem).history = [
    {
      step: 'ensure-beneficiary',
      status: 'initialized',
      at: 400_000,
      note: `waiting for the payment source's wake-up at ${new Date(instant).toISOString()}`,
    },
    { step: 'completed', status: 'done', at: instant + lateS * 1000 },
  ];
  input.items.push({
    pk: 'DEPOSIT#src_0',
    sk: 'DEPOSIT',
    id: 'src_0',
    status: 'done',
    step: 'completed',
    version: 4,
    amountMinor: 0,
    currency: 'AED',
    history: [],
  });
  input.sources.push({ userIndex: 0, id: 'src_0', scheduleDeleted: true, outcome: 'final', findings: [] });
  input.deliveries.push({
    id: 'src_0.v4',
    type: 'source.ready',
    depositId: 'src_0',
    data: {},
    verified: true,
  });
}

describe('the chaos audit', () => {
  it('finds nothing in a clean outcome', () => {
    expect(audit(cleanOutcome()).failures).toEqual([]);
  });

  it('passes an unknown transfer outcome with evidence of its own: its workers killed with its attempt open', () => {
    const input = cleanOutcome();
    unknownOutcome(input);
    input.crashes.deaths.push({
      point: 'after-provider-call',
      step: 'transfer',
      ownerKey: 'owner',
      at: 0,
      how: 'killed',
      attemptsOpen: ['dep_1'],
    });
    expect(audit(input).failures).toEqual([]);
  });

  it('passes a second creation of the beneficiary with a recorded reason: the bank said it was gone', () => {
    const input = cleanOutcome();
    input.ledgers.get(0)?.beneficiaryCreations?.push(creation('created'));
    noted(input, 'the bank says the beneficiary is gone: registering it again');
    expect(audit(input).failures).toEqual([]);
  });

  it("passes a creation whose answer was lost, made again and refused as existing (a bank's 5xx)", () => {
    const input = cleanOutcome();
    input.ledgers.get(0)?.beneficiaryCreations?.push(creation('refused', 'BENEFICIARY_ALREADY_EXISTS'));
    (input.items[0] as TableItem).history = [
      { step: 'ensure-beneficiary', status: 'initialized', at: 0, note: 'provider server_error' },
      { step: 'completed', status: 'done', at: 1 },
    ];
    expect(audit(input).failures).toEqual([]);
  });

  it('counts a workers’ process killed while deposits stood at ensure-beneficiary once', () => {
    const input = cleanOutcome();
    const creations = input.ledgers.get(0)?.beneficiaryCreations;
    creations?.push(creation('refused', 'BENEFICIARY_ALREADY_EXISTS'));
    for (const item of input.items as TableItem[])
      item.history = [
        { step: 'ensure-beneficiary', status: 'initialized', at: 100 },
        { step: 'completed', status: 'done', at: 300 },
      ];
    // Another user's crash point: the process took every step it had in hand.
    input.crashes.deaths.push({
      point: 'after-state-write',
      step: 'transfer',
      ownerKey: 'other',
      depositId: 'dep_other',
      at: 200,
      how: 'killed',
      attemptsOpen: [],
    });
    expect(audit(input).failures).toEqual([]);

    creations?.push(creation('refused', 'BENEFICIARY_ALREADY_EXISTS'));
    expect(audit(input).failures).toEqual([
      expect.stringMatching(/create again without a recorded reason.*3 creations.*for 1 recorded reasons/),
    ]);
  });

  it('passes BENEFICIARY_AMBIGUOUS at a masked bank once its user’s record was forgotten', () => {
    const input = cleanOutcome();
    decoyedAndAmbiguous(input);
    (input.items[1] as TableItem).history = [
      {
        step: 'ensure-beneficiary',
        status: 'initialized',
        at: 0,
        note: 'the bank says the beneficiary is gone: registering it again',
      },
    ];
    expect(audit(input).failures).toEqual([]);
  });

  it('passes an unknown transfer outcome with evidence of its own: its submission’s answer lost', () => {
    const input = cleanOutcome();
    unknownOutcome(input);
    input.crashes.lostAnswers.push({ ownerKey: 'owner', depositId: 'dep_1', reason: 'timeout', at: 0 });
    expect(audit(input).failures).toEqual([]);
  });

  it('passes an unknown transfer outcome with evidence of its own: a DynamoDB fault with its attempt open', () => {
    const input = cleanOutcome();
    unknownOutcome(input);
    const fault = { kind: 'transaction-conflict' as const, ownerKey: 'owner', depositIds: ['dep_1'], at: 0 };
    input.dynamoDbFaults = { fired: { 'transaction-conflict': 1 }, armed: 0, inAttempts: [fault] };
    expect(audit(input).failures).toEqual([]);
  });

  it('passes a source that ended ready, heard, whose follower moved within the stall time of its instant', () => {
    const input = cleanOutcome();
    withSource(input, 6);
    expect(audit(input).failures).toEqual([]);
  });

  it('passes a source planned to lose its schedule whose wake-up was never armed (its worker died first)', () => {
    const input = cleanOutcome();
    withSource(input, 6);
    (input.plan.users[0] as PlannedUser).source = {
      when: 'first',
      fails: false,
      idempotencyKey: 'src',
      losesSchedule: true,
    };
    Object.assign(input.sources.at(-1) as SourceRun, {
      scheduleDeleted: false,
      scheduleNeverArmed: 'wait-cooldown v3 until 2026-11-28T09:31:17.833Z',
    });
    expect(audit(input).failures).toEqual([]);
  });

  it("measures a follower whose source's instant the clock jumped over from where the jump landed", () => {
    const input = cleanOutcome();
    withSource(input, 3_600);
    input.clockJumps = [{ from: 450_000, to: 500_000 + 3_595_000 }];
    expect(audit(input).failures).toEqual([]);
  });

  it("measures it from where the later jump landed when a later one passed over the instant, and not from the first's", () => {
    const jumps = [
      { from: 100_000, to: 200_000 },
      { from: 450_000, to: 500_000 + 3_595_000 },
    ];
    const input = cleanOutcome();
    withSource(input, 3_600);
    input.clockJumps = jumps;
    expect(audit(input).failures).toEqual([]);
    const late = cleanOutcome();
    withSource(late, 3_600);
    late.clockJumps = jumps.slice(0, 1);
    expect(audit(late).failures.join('\n')).toMatch(/waited for a source's wake-up past its instant/);
  });

  it('places a real-time instant in the local clock past every jump before it, and none after', () => {
    const jumps = [
      { from: 100_000, to: 200_000 },
      { from: 250_000, to: 300_000 },
    ];
    expect(inLocalTime(50_000, jumps)).toBe(50_000);
    // Past the first (100 s ahead), then past the second's start in local time (150 + 100 >= 250).
    expect(inLocalTime(150_000, jumps)).toBe(300_000);
    expect(inLocalTime(120_000, jumps)).toBe(220_000);
  });

  it('measures a delay in real time: a jump over the instant counts from where it landed, one after the instant not at all', () => {
    const jumps = [
      { from: 100_000, to: 200_000 },
      { from: 250_000, to: 300_000 },
    ];
    // Jumped over by the first: came at 200 s, moved 5 s after.
    expect(realDelay(150_000, 205_000, jumps)).toBe(5_000);
    // Due at 240 s, the second jump (another's wait) came before its move at 302 s: 12 s of real time.
    expect(realDelay(240_000, 302_000, jumps)).toBe(12_000);
    // Between the jumps: the local time is the real time.
    expect(realDelay(210_000, 220_000, jumps)).toBe(10_000);
    expect(realDelay(150_000, 205_000, [])).toBe(55_000);
  });

  it("passes a follower due when another's wait was jumped over, which moved after that jump", () => {
    const input = cleanOutcome();
    withSource(input, 62);
    // Its instant at 500 s; a jump of 61 s at 501 s, for another deposit's wait.
    input.clockJumps = [{ from: 501_000, to: 562_000 }];
    expect(audit(input).failures).toEqual([]);
    const without = cleanOutcome();
    withSource(without, 62);
    expect(audit(without).failures.join('\n')).toMatch(/moved 62 s after its source's instant/);
  });

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
