import { withoutEmptyResume } from '#shared/sandbox/dialect-v2/requests';
import { BalanceByRequest, getBalance } from '#shared/sandbox/operations/account-balance';
import { connectionRoute } from '#shared/wiring/sandbox';

/** Shared by both dialects: PHP's, Java's and C#'s `operationID: ""`, PHP's `userInputs: []` are absent. */
export const handler = connectionRoute(withoutEmptyResume(BalanceByRequest), getBalance);
