/**
 * What the sandbox engine's unit files share: the one-time password, the test options' times, a
 * failed envelope, a clock whose sleeps wait for the test, an answered question, a user's
 * beneficiary.
 */
import { expect } from 'vitest';
import type { HttpAnswer } from '#shared/sandbox/answer';
import { createBeneficiary, listBeneficiaries } from '#shared/sandbox/operations/beneficiaries';
import { type SandboxTestUser, testSandboxOptions, walletBeneficiary } from './given-sandbox.ts';
import { ManualClock } from './manual-clock.ts';

export const OTP = '123456';
export const { asyncDelayMs, inputTtlMs, lockMs } = testSandboxOptions;

/** The spec's failed envelope with this type, and the fields given (such as the operation's id). */
export const failed = (type: string, fields: Record<string, unknown> = {}) =>
  expect.objectContaining({ success: false, status: 'failed', type, msg: expect.any(String), ...fields });

/** A manual clock whose sleeps wait until the test wakes them, so a test can act in the middle of one. */
export class GatedClock extends ManualClock {
  private sleeper: (() => void) | undefined;
  private announce: () => void = () => {};
  private readonly asleep = new Promise<void>((resolve) => {
    this.announce = resolve;
  });

  override async sleep(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      this.sleeper = resolve;
      this.announce();
    });
    await super.sleep(ms);
  }

  /** Resolves once the code under test sleeps. */
  sleeping(): Promise<void> {
    return this.asleep;
  }

  wake(): void {
    this.sleeper?.();
  }
}

/** The OTP question of a `user_input_required` answer, answered. */
export function answered(asked: HttpAnswer, answer: string) {
  const inputs = asked.body.userInputs as { id: string; index: number; query: string; answer: string }[];
  return inputs.map((input) => ({ ...input, answer }));
}

/** The wallet beneficiary of a user at the OTP bank: asked, then answered. Returns its id. */
export async function givenOtpBeneficiary(user: SandboxTestUser): Promise<string> {
  const asked = await user.call(createBeneficiary, { sync: true, ...walletBeneficiary() });
  const done = await user.call(createBeneficiary, {
    sync: true,
    ...walletBeneficiary(),
    jobID: String(asked.body.jobID),
    userInputs: answered(asked, OTP),
  });
  if (done.body.status !== 'done') throw new Error(`no beneficiary: ${JSON.stringify(done.body)}`);
  return listedId(user);
}

export async function givenBeneficiary(user: SandboxTestUser): Promise<string> {
  await user.call(createBeneficiary, { sync: true, ...walletBeneficiary() });
  return listedId(user);
}

/** The id the list shows for the user's one beneficiary (the creation's reference is a receipt). */
export async function listedId(user: SandboxTestUser): Promise<string> {
  const listed = await user.call(listBeneficiaries, { sync: true });
  const [beneficiary] = listed.body.beneficiaries as { id: string }[];
  return String(beneficiary?.id);
}
