/**
 * Reading the `dapi-v2` dialect's answers where they differ from the spec's beyond their schemas
 * (`interface/responses-v2.ts`), into the same answers, refusals and unknown outcomes:
 *   - a cool-down refusal names a period (`coolDownPeriod {value, unit}`, or "after x hour(s)" in its
 *     `msg`), not an instant: it ends that long after the refusal was read;
 *   - an operation read answers the operation under `opInfo` (D-opget): `done`, `initialized`, a
 *     question, or `failed` with its `errorType`, a refusal naming the operation that was read.
 */
import { coolDownMs, periodInMessage } from '#shared/provider/interface/dialects';
import { OperationInfoResponse, V2FailedEnvelope } from '#shared/provider/interface/responses-v2';
import { type ProviderAnswer, ProviderUnknownOutcome } from './outcomes.ts';
import { outsideTheSpec, type RawResponse, type Read, type Refuser, refusal } from './reading.ts';
import type { OperationAnswer } from './requests.ts';

/** The v2 failed envelope: the spec's, with the cool-down's period. */
export const v2Refusal: Refuser = (json, response, operationId) => {
  const failed = V2FailedEnvelope.safeParse(json);
  if (!failed.success) return undefined;
  const { type, msg, coolDownPeriod, operationID } = failed.data;
  // An empty id names no operation (a provider that writes every field).
  const named = operationId ?? (operationID || undefined);
  return refusal({ type, msg }, response, named, coolDownEnd(type, msg, coolDownPeriod, response.at));
};

/**
 * When a cool-down refusal's period ends: its `coolDownPeriod`, else the period its message names,
 * counted from when the refusal was read. Undefined otherwise (the refusal then reads an instant in
 * its message, as the spec dialect's does).
 */
export function coolDownEnd(
  type: string,
  msg: string,
  period: { value: number; unit: string } | null | undefined,
  at: number | undefined,
): number | undefined {
  if (type !== 'BENEFICIARY_COOL_DOWN_PERIOD' || at === undefined) return undefined;
  const named = period ?? periodInMessage(msg);
  if (!named) return undefined;
  const ms = coolDownMs(named);
  return Number.isFinite(ms) ? at + ms : undefined;
}

/**
 * An operation read's answer (`POST /v2/operation/get`) as the answer of the operation it read,
 * `operationID`. D-opget shows no `operationID` in the answer: the answer is the one asked for.
 */
export function readOperationInfo(
  response: RawResponse,
  path: string,
  operationID: string,
): ProviderAnswer<Read<OperationAnswer>> {
  const read = OperationInfoResponse.safeParse(response.json);
  if (!read.success) {
    // No `opInfo`: the read itself was refused (naming what its envelope names), or is unreadable.
    const refused = v2Refusal(response.json, response);
    if (refused) throw refused;
    throw outsideTheSpec(path, response);
  }
  const { opInfo, coolDownPeriod, ...envelope } = read.data;
  const inconsistent = () =>
    new ProviderUnknownOutcome(
      'unreadable',
      `${path} answered an inconsistent opInfo for ${operationID}`,
      response.status,
    );
  if (opInfo.status === 'failed') {
    const type = opInfo.errorType ?? envelope.type;
    if (!type) throw inconsistent();
    const msg = envelope.msg ?? `operation ${operationID} failed: ${type}`;
    throw refusal({ type, msg }, response, operationID, coolDownEnd(type, msg, coolDownPeriod, response.at));
  }
  if (!envelope.success || envelope.status === 'failed' || response.status >= 400) throw inconsistent();
  const base = { operationID, success: true, status: opInfo.status };
  switch (opInfo.status) {
    case 'done': {
      // A transfer's outcome names no reference in D-opget: its operation's id stands for it
      // (docs/sandbox.md, "Provider dialects").
      const reference = opInfo.transferDetails?.reference ?? envelope.reference ?? operationID;
      return { status: 'done', id: operationID, response: { ...base, reference } };
    }
    case 'initialized':
      return { status: 'initialized', id: operationID, response: base };
    case 'user_input_required': {
      const userInputs = opInfo.userInputs ?? envelope.userInputs;
      if (!userInputs?.length) throw inconsistent();
      return {
        status: 'user_input_required',
        id: operationID,
        userInputs,
        response: { ...base, userInputs },
      };
    }
  }
}
