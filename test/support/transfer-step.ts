/**
 * What the transfer step's unit files share: a deposit at the step, the wallet's inline details, the
 * deposit as stored at each provider call, a beneficiary's claim.
 */
import type { Deposit } from '#shared/deposits/model/deposit';
import { banks, ownerKey, type World } from './deposit-world.ts';

export type Context = ReturnType<World['contexts']['transfer']>;

/** A deposit as ensure-beneficiary leaves it: at transfer, with the beneficiary's id. */
export function atTransfer(w: World, overrides: Partial<Deposit> = {}) {
  return w.deposit({
    step: 'transfer',
    version: 2,
    bank: banks.beneficiary,
    beneficiaryId: 'ben-1',
    ...overrides,
  });
}

export function inline(w: World) {
  const wallet = w.wallets.find('wallet-aed');
  if (!wallet) throw new Error('no wallet-aed');
  return wallet.inline;
}

export const order = { amountMinor: 2550, currency: 'AED', senderID: 'acc-1' };

/** The deposit as stored at the moment of each provider call (the fake provider's port, passed through). */
export function storedAtEachCall(w: World, ctx: Context, depositId: string): Deposit[] {
  const seen: Deposit[] = [];
  const port = ctx.provider;
  ctx.provider = {
    createTransfer: (...args) => {
      seen.push(w.table.current(depositId));
      return port.createTransfer(...args);
    },
    createAutoflowTransfer: (...args) => {
      seen.push(w.table.current(depositId));
      return port.createAutoflowTransfer(...args);
    },
  };
  return seen;
}

export function claimFor(depositId: string) {
  return {
    ownerKey,
    walletAccountId: 'wallet-aed',
    state: 'created' as const,
    depositId,
    claimedAt: 0,
    beneficiaryId: 'ben-1',
  };
}
