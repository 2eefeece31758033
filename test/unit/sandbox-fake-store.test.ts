/**
 * The in-memory sandbox store keeps the DynamoDB adapter's rules, so the engine's unit tests mean what
 * they say: all-or-nothing transactions with the adapter's conflict reasons (duplicate IBAN, a debit
 * below zero, an operation's precondition), the conditions of the connection lock, and copies in and out.
 */
import { describe, expect, it } from 'vitest';
import type {
  AccountRecord,
  BeneficiaryCreationCall,
  BeneficiaryRecord,
  ConnectionRecord,
  OperationRecord,
  TransferRecord,
} from '#shared/sandbox/store';
import { FakeSandboxStore } from '../support/fake-sandbox-store.ts';

const NOW = Date.UTC(2026, 0, 15, 9);

const connection: ConnectionRecord = {
  id: 'conn_1',
  bankId: 'SANDBOX_BENEFICIARY',
  appSecretDigest: 'app',
  userSecretDigest: 'user',
  faults: [],
  createdAt: NOW,
};
const account: AccountRecord = { connectionId: 'conn_1', id: 'acc_1', currency: 'AED', balanceMinor: 10_000 };

function operation(id: string, state: OperationRecord['state'] = 'final'): OperationRecord {
  return {
    id,
    connectionId: 'conn_1',
    kind: 'transfer.create',
    fingerprint: 'f',
    state,
    response: { success: true, status: state === 'final' ? 'done' : 'user_input_required' },
    httpStatus: 200,
    completesAt: NOW,
    createdAt: NOW,
  };
}

function beneficiary(id: string, iban: string): BeneficiaryRecord {
  return {
    connectionId: 'conn_1',
    id,
    type: 'local',
    name: 'Acme Wallet LLC',
    iban,
    accountNumber: '',
    swiftCode: 'WALTAEAD',
    sortCode: '',
    bankName: '',
    country: 'United Arab Emirates',
    branchName: '',
    branchAddress: '',
    createdAt: NOW,
    coolDownUntil: NOW,
  };
}

function transfer(reference: string, amountMinor: number, operationId: string): TransferRecord {
  return {
    connectionId: 'conn_1',
    reference,
    operationId,
    senderId: 'acc_1',
    amountMinor,
    currency: 'AED',
    transferType: 'local',
    receiver: { name: 'Acme Wallet LLC', iban: 'AE070331234567890123456', swiftCode: 'WALTAEAD' },
    createdAt: NOW,
  };
}

/** The call that creates a beneficiary, for its operation. */
function created(operationId: string): BeneficiaryCreationCall {
  return {
    connectionId: 'conn_1',
    id: `bcc_${operationId}`,
    operationId,
    at: NOW,
    iban: 'AE07',
    accountNumber: '',
    outcome: 'created',
  };
}

async function givenStore() {
  const store = new FakeSandboxStore();
  await store.createUser(connection, [account], []);
  return store;
}

describe('the fake sandbox store', () => {
  it('refuses a second beneficiary with the same IBAN (duplicate_beneficiary), writing nothing of it', async () => {
    // prepare
    const store = await givenStore();
    await store.createBeneficiary(beneficiary('ben_1', 'AE07'), operation('job_1'), 'new', created('job_1'));

    // act
    const second = store.createBeneficiary(
      beneficiary('ben_2', 'AE07'),
      operation('job_2'),
      'new',
      created('job_2'),
    );

    // assess
    await expect(second).rejects.toMatchObject({ reason: 'duplicate_beneficiary' });
    expect((await store.listBeneficiaries('conn_1')).map((listed) => listed.id)).toEqual(['ben_1']);
    expect(await store.getOperation('job_2')).toBeUndefined();
    // The call that created is written with the creation; the refused one is not.
    const { creationCalls } = await store.getUserAssets('conn_1');
    expect(creationCalls.map((call) => call.operationId)).toEqual(['job_1']);
  });

  it('refuses a debit below zero (insufficient_balance), writing nothing of the transfer', async () => {
    // prepare
    const store = await givenStore();

    // act
    const tooMuch = store.commitTransfer(transfer('TRF1', 10_001, 'op_1'), operation('op_1'), 'new');
    await store.commitTransfer(transfer('TRF2', 10_000, 'op_2'), operation('op_2'), 'new');
    const assets = await store.getUserAssets('conn_1');

    // assess
    await expect(tooMuch).rejects.toMatchObject({ reason: 'insufficient_balance' });
    expect(await store.getOperation('op_1')).toBeUndefined();
    expect(assets.transfers.map((recorded) => recorded.reference)).toEqual(['TRF2']);
    expect(assets.accounts[0]?.balanceMinor).toBe(0);
  });

  it('writes an operation only when its precondition holds: new, or still awaiting input', async () => {
    // prepare
    const store = await givenStore();
    await store.saveOperation(operation('op_1', 'awaiting_input'), 'new');

    // act
    const againNew = store.saveOperation(operation('op_1'), 'new');
    await store.commitTransfer(transfer('TRF1', 100, 'op_1'), operation('op_1'), 'awaiting_input');
    const answeredTwice = store.commitTransfer(
      transfer('TRF2', 100, 'op_1'),
      operation('op_1'),
      'awaiting_input',
    );
    const neverAsked = store.saveOperation(operation('op_2'), 'awaiting_input');

    // assess
    await expect(againNew).rejects.toMatchObject({ reason: 'operation' });
    await expect(answeredTwice).rejects.toMatchObject({ reason: 'operation' });
    await expect(neverAsked).rejects.toMatchObject({ reason: 'operation' });
    expect((await store.getUserAssets('conn_1')).transfers).toHaveLength(1);
    expect((await store.getUserAssets('conn_1')).accounts[0]?.balanceMinor).toBe(9_900);
  });

  it('locks a connection for one operation until the lock expires; a former holder releases nothing', async () => {
    // prepare
    const store = await givenStore();
    await store.acquireLock('conn_1', 'op_1', NOW + 1_000, NOW);

    // act
    // Held until its time, free from that instant on.
    const otherWhileHeld = await store.acquireLock('conn_1', 'op_2', NOW + 1_000, NOW + 999);
    const sameAgain = await store.acquireLock('conn_1', 'op_1', NOW + 1_000, NOW + 500);
    const otherAfterExpiry = await store.acquireLock('conn_1', 'op_2', NOW + 2_000, NOW + 1_000);
    await store.releaseLock('conn_1', 'op_1');
    const holder = (await store.getConnection('conn_1'))?.lockOperationId;

    // assess
    expect(otherWhileHeld).toBe(false);
    expect(sameAgain).toBe(true);
    expect(otherAfterExpiry).toBe(true);
    expect(holder).toBe('op_2');
  });

  it('uses a counted fault rule until none is left', async () => {
    // prepare
    const store = await givenStore();
    await store.setFaults('conn_1', [{ outcome: 'error', remaining: 2 }, { latencyMs: 10 }]);

    // act
    const uses = [
      await store.consumeFault('conn_1', 0),
      await store.consumeFault('conn_1', 0),
      await store.consumeFault('conn_1', 0),
      await store.consumeFault('conn_1', 1),
    ];

    // assess
    expect(uses).toEqual([true, true, false, false]);
  });

  it('hands out copies: changing a record read does not change the store', async () => {
    // prepare
    const store = await givenStore();
    const read = await store.getAccount('conn_1', 'acc_1');

    // act
    if (read) read.balanceMinor = 0;

    // assess
    expect((await store.getAccount('conn_1', 'acc_1'))?.balanceMinor).toBe(10_000);
  });
});
