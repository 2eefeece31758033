/**
 * The local stack's step lines (`infra/local/activity.ts`) are a side channel of the outbox relay's
 * stream poller: a record they cannot read (an attribute of a shape `unmarshall` refuses, as the
 * stream can hand) is skipped, and never stops the lines of the others.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { describe, expect, it, vi } from 'vitest';
import { transitionsSayer } from '#infra/local/activity';

const deposit = (id: string, extra: Record<string, unknown> = {}) => ({
  dynamodb: {
    NewImage: {
      sk: { S: 'DEPOSIT' },
      id: { S: id },
      history: {
        L: [
          { M: { step: { S: 'resolve-bank' }, status: { S: 'initialized' } } },
          { M: { step: { S: 'transfer' }, status: { S: 'initialized' } } },
        ],
      },
      ...extra,
    },
  },
});

describe('the step lines of the local stack', () => {
  it('skip an attribute unmarshall refuses, and say the steps of every deposit', () => {
    // prepare
    vi.stubEnv('POWERTOOLS_LOG_LEVEL', 'INFO');
    const say = transitionsSayer();
    const info = vi.spyOn(Logger.prototype, 'info').mockImplementation(() => undefined);

    // act
    const reading = () => say([deposit('dep_1', { sealedBy: {} }), deposit('dep_2')] as never);

    // assess
    expect(reading).not.toThrow();
    const lines = info.mock.calls.map(([line]) => String(line));
    expect(lines).toEqual(
      expect.arrayContaining([expect.stringMatching(/^deposit dep_1 resolve-bank → transfer/)]),
    );
    expect(lines).toEqual(
      expect.arrayContaining([expect.stringMatching(/^deposit dep_2 resolve-bank → transfer/)]),
    );
    info.mockRestore();
    vi.unstubAllEnvs();
  });
});
