/**
 * The provider client against answers the sandbox does not give, each played by a local HTTP server
 * in front of nothing: a misbehaving proxy's pages and off-spec bodies (unreadable: an unknown
 * outcome), and a provider that answers its failures with HTTP 200 (the envelope decides: a refusal
 * with its type, never an unknown outcome).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ProviderClient, ProviderRefusal } from '#shared/provider/client';
import { InlineBeneficiary, NewBeneficiary } from '#shared/provider/interface/schemas';
import { failureOf } from '../support/fake-provider.ts';
import { walletBeneficiary, walletInline } from '../support/sandbox.ts';

describe('provider client against a misbehaving provider', () => {
  it.each([
    ['HTML', 200, 'text/html', '<html>gateway</html>'],
    ['off-spec JSON', 200, 'application/json', '{"ok":true}'],
    ['an envelope without its id', 200, 'application/json', '{"success":true,"status":"done"}'],
    ['a 4xx without an envelope', 403, 'application/json', '{"message":"Forbidden"}'],
  ])('reports %s as unreadable', async (_name, status, type, body) => {
    // A fault the sandbox cannot produce: a misbehaving proxy in front of the provider, played by
    // a local HTTP server.
    const proxy = createServer((_request, response) => {
      response.writeHead(status, { 'content-type': type });
      response.end(body);
    });
    await new Promise<void>((ready) => proxy.listen(0, '127.0.0.1', ready));
    const { port } = proxy.address() as AddressInfo;
    const behindProxy = new ProviderClient({ baseUrl: `http://127.0.0.1:${port}`, timeoutMs: 2_000 });

    const outcome = await failureOf(
      behindProxy.getMetadata({ accessToken: 't', appSecret: 'a', userSecret: 'u' }),
    );

    proxy.close();
    expect(outcome).toMatchObject({ name: 'ProviderUnknownOutcome', reason: 'unreadable' });
  });

  /**
   * A provider that answers its failures with HTTP 200 (or any status below 500): the envelope
   * decides, so each is a refusal with its type, never an unknown outcome (which, for a transfer,
   * would end the deposit as TRANSFER_OUTCOME_UNKNOWN although nothing moved). A fault the sandbox
   * does not produce, played by a local HTTP server.
   */
  describe('a provider that answers failures with HTTP 200', () => {
    const credentials = { accessToken: 't', appSecret: 'a', userSecret: 'u' };
    const calls: [string, (client: ProviderClient) => Promise<unknown>][] = [
      ['the token exchange', (c) => c.exchangeToken('a', 'code', 'conn')],
      ['the metadata', (c) => c.getMetadata(credentials)],
      ['the beneficiary list', (c) => c.listBeneficiaries(credentials)],
      [
        'a beneficiary creation',
        (c) => c.createBeneficiary(credentials, NewBeneficiary.parse(walletBeneficiary())),
      ],
      [
        'a transfer',
        (c) =>
          c.createTransfer(credentials, {
            amountMinor: 100,
            currency: 'AED',
            senderID: 's',
            receiverID: 'r',
          }),
      ],
      [
        'an inline transfer',
        (c) =>
          c.createAutoflowTransfer(credentials, {
            amountMinor: 100,
            currency: 'AED',
            senderID: 's',
            beneficiary: InlineBeneficiary.parse(walletInline()),
          }),
      ],
    ];

    it.for(calls.flatMap(([name, call]) => [200, 202, 409].map((status) => ({ name, call, status }))))(
      'reads $name answered $status with a failed envelope as a refusal',
      async ({ call, status }) => {
        const proxy = createServer((request, response) => {
          const id = request.url?.includes('beneficiar') ? { jobID: 'job-1' } : { operationID: 'op-1' };
          response.writeHead(status, { 'content-type': 'application/json' });
          response.end(
            JSON.stringify({
              ...id,
              success: false,
              status: 'failed',
              type: 'INSUFFICIENT_BALANCE',
              msg: 'No',
            }),
          );
        });
        await new Promise<void>((ready) => proxy.listen(0, '127.0.0.1', ready));
        const { port } = proxy.address() as AddressInfo;
        const provider = new ProviderClient({ baseUrl: `http://127.0.0.1:${port}`, timeoutMs: 2_000 });

        const outcome = await failureOf(call(provider));

        proxy.close();
        expect(outcome).toBeInstanceOf(ProviderRefusal);
        expect(outcome).toMatchObject({ type: 'INSUFFICIENT_BALANCE', msg: 'No', httpStatus: status });
      },
    );

    it('still reads a 5xx with a failed envelope as an unknown outcome: a server error says nothing of the effect', async () => {
      const proxy = createServer((_request, response) => {
        response.writeHead(500, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            operationID: 'op-1',
            success: false,
            status: 'failed',
            type: 'INTERNAL_ERROR',
            msg: 'x',
          }),
        );
      });
      await new Promise<void>((ready) => proxy.listen(0, '127.0.0.1', ready));
      const { port } = proxy.address() as AddressInfo;
      const provider = new ProviderClient({ baseUrl: `http://127.0.0.1:${port}`, timeoutMs: 2_000 });

      const outcome = await failureOf(
        provider.createTransfer(credentials, {
          amountMinor: 100,
          currency: 'AED',
          senderID: 's',
          receiverID: 'r',
        }),
      );

      proxy.close();
      expect(outcome).toMatchObject({
        name: 'ProviderUnknownOutcome',
        reason: 'server_error',
        httpStatus: 500,
      });
    });
  });
});
