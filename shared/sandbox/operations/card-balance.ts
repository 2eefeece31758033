/** `/v2/data/balance/get`: a card's balances, behind a one-time password at banks that ask for one. */
import { currencyObject, fromMinorUnits } from '#shared/money';
import { ProviderError } from '#shared/provider/interface/errors';
import type { BalanceRequest } from '#shared/provider/interface/schemas';
import type { OperationContext } from '../operation-spec.ts';

export function getCardBalance(context: OperationContext, request: BalanceRequest) {
  const { connection, store } = context;
  return context.run({
    kind: 'balance',
    idField: 'operationID',
    request,
    prepare: async () => {
      const card = await store.getCard(connection.id, request.cardID);
      if (!card) throw new ProviderError('INVALID_CARD_ID');
      return {
        availableBalance: fromMinorUnits(card.availableMinor, card.currency),
        outstandingBalance: fromMinorUnits(card.outstandingMinor, card.currency),
        amountDue: fromMinorUnits(card.amountDueMinor, card.currency),
        cardNumber: card.cardNumber,
        dueDate: card.dueDate,
        currency: currencyObject(card.currency),
      };
    },
    result: (balance) => ({ balance }),
  });
}
