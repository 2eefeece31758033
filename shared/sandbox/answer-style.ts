/**
 * How a bank writes its answers. Most sandbox banks leave out what an answer does not return; a bank
 * that writes `sparse` answers (`SANDBOX_SPARSE`) writes every field of the spec's common envelope,
 * `null` where the spec returns it only in other answers, leaves out the question list (`userInputs`),
 * and gives `amountDue` as the string the spec declares rather than the number it shows. Each of those
 * is what the spec allows (docs/sandbox.md, "Interface decisions"); the metadata's `sortCode`, the one field it
 * declares nullable, is `null` at every sandbox bank. Failed envelopes are written alike at every bank.
 */
import { currencies, isCurrencyCode } from '#shared/money';
import type { HttpAnswer } from './answer.ts';
import type { SandboxBank } from './catalog.ts';

/** Envelope fields the spec returns only in some answers (`jobID` and `operationID` by operation). */
const nulledWhenAbsent = ['jobID', 'operationID', 'type', 'msg', 'reference'] as const;

/** The answer as `bank` writes it. */
export function styledAnswer(bank: SandboxBank, answer: HttpAnswer): HttpAnswer {
  if (bank.answers !== 'sparse' || answer.body.success !== true) return answer;
  const body: Record<string, unknown> = { ...answer.body };
  for (const field of nulledWhenAbsent) body[field] ??= null;
  if (isBalance(body.balance)) body.balance = { ...body.balance, amountDue: declaredAmount(body.balance) };
  return { ...answer, body };
}

type Balance = { amountDue: unknown; currency: { code: string } };

function isBalance(value: unknown): value is Balance {
  return typeof value === 'object' && value !== null && 'amountDue' in value && 'currency' in value;
}

/** `amountDue` as a string in major units with the currency's decimals ("1250.00"). */
function declaredAmount(balance: Balance): unknown {
  const { amountDue, currency } = balance;
  if (typeof amountDue !== 'number' || !isCurrencyCode(currency.code)) return amountDue;
  return amountDue.toFixed(currencies[currency.code].exponent);
}
