import { AnswerDepositRequest } from '#shared/contracts/deposits-schemas';
import { answerDeposit } from '#shared/deposits/requests/answer';
import { ownerRoute } from '#shared/middleware/deposit-route';
import { annotateDeposit } from '#shared/tracing';
import { handlerContext } from '#shared/wiring/handler-context';

const context = await handlerContext('deposits-answer');

export const handler = ownerRoute(AnswerDepositRequest, ({ body, caller }) => {
  annotateDeposit(body.operationID);
  return answerDeposit(
    { depositId: body.operationID, userInputs: body.userInputs, ...caller, userSecret: body.userSecret },
    context,
  );
});
