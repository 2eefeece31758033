/**
 * The chaos harness's calls to the provider sandbox: its banks, a fresh user with its access token,
 * the user's fault rules, a beneficiary of its own (a decoy), and what the sandbox holds of the user
 * (its ledger, the calls of its beneficiary creation, its beneficiaries). Its provider calls (the
 * token exchange, a decoy's creation, the list) speak the spec dialect whatever the orchestrator
 * speaks: the sandbox serves both at once, and a user can be driven in either.
 */
import type { LocalStack } from '#infra/local/stack';
import { SandboxBanksResponse } from '#shared/provider/interface/responses';
import { SandboxUserResponse } from '#shared/sandbox/admin-schemas';
import type { FaultRule } from './faults.ts';
import { auth, send } from './http.ts';

/** The credentials of one sandbox user, as a caller of the deposits API holds them. */
export interface Connection {
  connectionID: string;
  accessToken: string;
  userSecret: string;
  accountId: string;
  openingBalance: number;
}

export function sandboxClient(stack: LocalStack, appSecret: string) {
  return {
    async banks() {
      const reply = await send('GET', `${stack.sandboxUrl}/sandbox/banks`);
      if (reply.status !== 200) throw new Error(`banks not listed: ${reply.status}`);
      return SandboxBanksResponse.parse(reply.body).banks;
    },

    /**
     * A fresh sandbox user on `bankId`, with its access token; its bank waits `inputTtlSeconds` for
     * answers, and takes `transferDelaySeconds` over a transfer (else the sandbox's delay).
     */
    async createUser(
      bankId: string,
      inputTtlSeconds: number,
      { transferDelaySeconds }: { transferDelaySeconds?: number } = {},
    ): Promise<Connection> {
      const created = await send('POST', `${stack.sandboxUrl}/sandbox/users`, {
        appSecret,
        bankId,
        inputTtlSeconds,
        ...(transferDelaySeconds === undefined ? {} : { transferDelaySeconds }),
      });
      if (created.status !== 201)
        throw new Error(`user not created: ${created.status} ${JSON.stringify(created.body)}`);
      const { connectionID, accessCode, userSecret, accounts } = created.body;
      const exchanged = await send('POST', `${stack.sandboxUrl}/v1/auth/ExchangeToken`, {
        appSecret,
        accessCode,
        connectionID,
      });
      if (exchanged.status !== 200) throw new Error(`token not exchanged: ${exchanged.status}`);
      return {
        connectionID,
        accessToken: exchanged.body.accessToken,
        userSecret,
        accountId: accounts[0].id,
        openingBalance: accounts[0].balance,
      };
    },

    async setFaults(connection: Connection, faults: FaultRule[]) {
      const reply = await send('POST', `${stack.sandboxUrl}/sandbox/faults`, {
        appSecret,
        connectionID: connection.connectionID,
        faults,
      });
      if (reply.status !== 200)
        throw new Error(`faults not set: ${reply.status} ${JSON.stringify(reply.body)}`);
    },

    /**
     * The user's accounts and transfers (each with its receiver) as the sandbox holds them (its
     * ledger), its fault rules as they stand (a counted rule with what it has left), and every call of
     * its beneficiary creation that reached the bank.
     */
    async ledger(connection: Connection) {
      const reply = await send('POST', `${stack.sandboxUrl}/sandbox/users/get`, {
        appSecret,
        connectionID: connection.connectionID,
      });
      if (reply.status !== 200) throw new Error(`user not read: ${reply.status}`);
      return SandboxUserResponse.parse(reply.body);
    },

    /** Registers a beneficiary for the user, as its own bank app would (a decoy beside the wallet). */
    async createBeneficiary(connection: Connection, beneficiary: Record<string, unknown>) {
      const reply = await send(
        'POST',
        `${stack.sandboxUrl}/v1/payment/beneficiaries/create`,
        { appSecret, userSecret: connection.userSecret, sync: true, ...beneficiary },
        auth(connection),
      );
      if (reply.status !== 200 || reply.body.status !== 'done')
        throw new Error(`beneficiary not created: ${reply.status} ${JSON.stringify(reply.body)}`);
    },

    /**
     * The user's beneficiaries, as the provider lists them (a provider call: clear faults first);
     * with `answer`, the answers to the list's question (a bank that asks on its list).
     */
    async beneficiaries(connection: Connection, answer?: { jobID: string; userInputs: unknown[] }) {
      return send(
        'POST',
        `${stack.sandboxUrl}/v1/payment/beneficiaries/get`,
        { appSecret, userSecret: connection.userSecret, sync: true, ...answer },
        auth(connection),
      );
    },
  };
}
