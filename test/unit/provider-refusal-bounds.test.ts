/**
 * What a provider's refusal may carry: its `type` a name of at most 64 capitals and
 * underscores, else a fixed type, its `msg` capped, and the body read at most `maxProviderBodyBytes`
 * (past it, an unknown outcome, read no further). Then a deposit failed by a refusal of a type this
 * service does not know reaches its owner and its webhook as a fixed type; the operators keep the
 * bank's. Through a fetch that answers as the provider would, and the deposit world's fakes.
 */
import { describe, expect, it } from 'vitest';
import { depositView } from '#shared/deposits/model/views';
import { resolveBank } from '#shared/deposits/steps/resolve-bank';
import { operatorView } from '#shared/operator/model';
import {
  maxProviderBodyBytes,
  ProviderClient,
  ProviderRefusal,
  ProviderUnknownOutcome,
  refusalMsgLength,
  unknownRefusalType,
} from '#shared/provider/client';
import { world } from '../support/deposit-world.ts';

const credentials = { accessToken: 'token', appSecret: 'app', userSecret: 'user' };

function answering(status: number, body: unknown, dialect: 'spec' | 'dapi-v2' = 'spec') {
  const fetch = async () =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  return new ProviderClient({ baseUrl: 'http://provider.test', timeoutMs: 1_000, fetch, dialect });
}

async function outcomeOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

async function refusalOf(promise: Promise<unknown>): Promise<ProviderRefusal> {
  const outcome = await outcomeOf(promise);
  if (!(outcome instanceof ProviderRefusal)) throw new Error(`expected a refusal, got ${String(outcome)}`);
  return outcome;
}

const failed = (type: unknown, msg: unknown = 'No') => ({
  jobID: 'job-1',
  success: false,
  status: 'failed',
  type,
  msg,
});

describe("a provider's refusal, bounded", () => {
  it.for([
    ['lower case', 'insufficient_balance'],
    ['65 characters', 'A'.repeat(65)],
    ['a digit', 'ERROR_42'],
    ['a space', 'NOT ALLOWED'],
    ['a line break', 'DENIED\nSTEP_FAILED'],
    ['empty', ''],
  ])(
    'takes a type with %s as the fixed type, naming it in the message for the operators',
    async ([, type]) => {
      // act
      const refusal = await refusalOf(answering(422, failed(type)).getMetadata(credentials));

      // assess
      expect(unknownRefusalType).toBe('PROVIDER_REFUSED');
      expect(refusal.type).toBe('PROVIDER_REFUSED');
      expect(refusal.msg).toContain(JSON.stringify(type).slice(0, 40));
      expect(refusal.msg).not.toContain('\n');
      expect(refusal.msg.length).toBeLessThanOrEqual(refusalMsgLength);
    },
  );

  it('keeps a type of 64 capitals and underscores as it is', async () => {
    const type = `${'A'.repeat(60)}_B_C`;

    const refusal = await refusalOf(answering(422, failed(type)).getMetadata(credentials));

    expect(refusal.type).toBe(type);
    expect(refusal.msg).toBe('No');
  });

  it('caps the message, and the read of a v2 operation refused by its errorType too', async () => {
    // prepare
    const long = 'x'.repeat(10_000);
    const v2 = answering(
      200,
      { success: true, status: 'done', opInfo: { status: 'failed', errorType: 'bank said no' }, msg: long },
      'dapi-v2',
    );

    // act
    const spec = await refusalOf(
      answering(422, failed('INSUFFICIENT_BALANCE', long)).getMetadata(credentials),
    );
    const read = await refusalOf(v2.getOperation(credentials, { operationID: 'op-1' }));

    // assess
    expect(refusalMsgLength).toBe(512);
    expect(spec.msg).toHaveLength(512);
    expect(read.type).toBe('PROVIDER_REFUSED');
    expect(read.msg.length).toBeLessThanOrEqual(512);
  });

  it('reads no body past the cap: an unknown outcome, the rest never pulled', async () => {
    // prepare: a body of 64 KiB chunks, 16 MiB in all (a provider gone wrong), counting what is pulled
    let pulled = 0;
    const chunk = new Uint8Array(64 * 1024).fill(0x20);
    const fetch = async () =>
      new Response(
        new ReadableStream<Uint8Array>({
          pull(controller) {
            if (pulled >= 16 * 1024 * 1024) return controller.close();
            pulled += chunk.byteLength;
            controller.enqueue(chunk);
          },
        }),
        { status: 200, headers: { 'content-type': 'application/json' } },
      );
    const client = new ProviderClient({ baseUrl: 'http://provider.test', timeoutMs: 5_000, fetch });

    // act
    const outcome = await outcomeOf(client.getMetadata(credentials));

    // assess
    expect(maxProviderBodyBytes).toBe(1024 * 1024);
    expect(outcome).toBeInstanceOf(ProviderUnknownOutcome);
    expect(outcome).toMatchObject({ reason: 'unreadable' });
    expect((outcome as Error).message).toContain('over 1048576 bytes');
    expect(pulled).toBeLessThanOrEqual(maxProviderBodyBytes + 2 * chunk.byteLength);
  });
});

describe('a deposit failed by a refusal of a type this service does not know', () => {
  it('tells its owner and its webhook a fixed type and message; the operators see the bank’s', async () => {
    // prepare
    const w = world();
    const deposit = await w.deposit();
    w.provider.answer('getMetadata', new ProviderRefusal('BANK_SPECIFIC_DENIAL', 'Denied by rule 7', 422));

    // act
    await resolveBank(deposit, w.contexts.resolveBank());

    // assess
    const stored = w.table.current(deposit.id);
    const owner = depositView(stored, w.clock.now());
    const event = w.events.published.at(-1);
    expect(owner).toMatchObject({
      status: 'failed',
      type: 'PROVIDER_REFUSED',
      msg: 'The bank refused the deposit',
    });
    expect(event).toMatchObject({
      type: 'deposit.failed',
      data: { type: 'PROVIDER_REFUSED', msg: 'The bank refused the deposit' },
    });
    expect(JSON.stringify([owner, event])).not.toContain('BANK_SPECIFIC_DENIAL');
    expect(operatorView(stored, w.clock.now()).msg).toBe('BANK_SPECIFIC_DENIAL: Denied by rule 7');
  });

  it('keeps a type of the interface, and its message, as it is', async () => {
    const w = world();
    const deposit = await w.deposit();
    w.provider.answer('getMetadata', new ProviderRefusal('UNAUTHORIZED', 'Invalid access token', 401));

    await resolveBank(deposit, w.contexts.resolveBank());

    const owner = depositView(w.table.current(deposit.id), w.clock.now());
    expect(owner).toMatchObject({ type: 'UNAUTHORIZED', msg: 'Invalid access token' });
  });
});
