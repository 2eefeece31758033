/**
 * `/v2/data/balance/get` in both dialects (the path they share answers the same in both): a card's
 * balance by `cardID` (the spec's; PHP's `getCardBalance`), or an account's by `accountID` (the SDKs'
 * `GetBalance`: `balance {amount, currency, accountNumber}`, `amount` a JSON number as Go decodes it).
 * Sandbox accounts have no number of their own: `accountNumber` is the account's id (guess).
 */
import type * as z from 'zod';
import { currencyObject, fromMinorUnits } from '#shared/money';
import { ProviderError } from '#shared/provider/interface/errors';
import { inputLimits } from '#shared/provider/interface/limits';
import { BalanceRequest, boundedText } from '#shared/provider/interface/schemas';
import type { HttpAnswer } from '../answer.ts';
import type { OperationContext } from '../operation-spec.ts';
import { getCardBalance } from './card-balance.ts';

/** The spec's balance request, asked by a card or (exactly one of the two) by an account. */
export const BalanceByRequest = BalanceRequest.extend({
  cardID: boundedText(inputLimits.id).optional(),
  accountID: boundedText(inputLimits.id).optional(),
}).refine((body) => (body.cardID === undefined) !== (body.accountID === undefined), {
  message: 'exactly one of cardID and accountID is required',
  path: ['cardID'],
});
export type BalanceByRequest = z.infer<typeof BalanceByRequest>;

export function getBalance(context: OperationContext, request: BalanceByRequest): Promise<HttpAnswer> {
  const { cardID, accountID, ...rest } = request;
  if (cardID !== undefined) return getCardBalance(context, { ...rest, cardID });
  return getAccountBalance(context, { ...rest, accountID: accountID ?? '' });
}

export function getAccountBalance(
  context: OperationContext,
  request: Omit<BalanceByRequest, 'cardID' | 'accountID'> & { accountID: string },
) {
  const { connection, store } = context;
  return context.run({
    kind: 'balance',
    idField: 'operationID',
    request,
    prepare: async () => {
      const account = await store.getAccount(connection.id, request.accountID);
      if (!account) throw new ProviderError('INVALID_ACCOUNT_ID');
      return {
        amount: fromMinorUnits(account.balanceMinor, account.currency),
        currency: currencyObject(account.currency),
        accountNumber: account.id,
      };
    },
    result: (balance) => ({ balance }),
  });
}
