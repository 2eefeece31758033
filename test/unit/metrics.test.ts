import { afterEach, describe, expect, it, vi } from 'vitest';

describe('deposit metrics', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllEnvs();
  });

  it('writes one DepositTransitions count per transition, by status and step, as CloudWatch EMF', async () => {
    // Powertools writes EMF to stdout; capture it (the only way to observe a metric without AWS).
    const lines: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    // The local stack turns metrics off in its process; this test is about them being on.
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
    vi.resetModules();
    const { depositMetrics } = await import('#shared/adapters/metrics');

    depositMetrics.transitioned('done', 'completed');

    const emf = lines.map((line) => JSON.parse(line)).find((entry) => 'DepositTransitions' in entry);
    expect(emf).toMatchObject({ status: 'done', step: 'completed', DepositTransitions: 1 });
    expect(emf._aws.CloudWatchMetrics[0]).toMatchObject({
      Namespace: 'BankDataAndPayments',
      Dimensions: [expect.arrayContaining(['status', 'step'])],
      Metrics: [{ Name: 'DepositTransitions', Unit: 'Count' }],
    });
  });

  it("writes one RedriveFailures count per sweeper run, the run's failed re-drives", async () => {
    const lines: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
    vi.resetModules();
    const { countRedriveFailures } = await import('#shared/adapters/metrics');

    countRedriveFailures(3);

    const emf = lines.map((line) => JSON.parse(line)).find((entry) => 'RedriveFailures' in entry);
    expect(emf).toMatchObject({ RedriveFailures: 3 });
    expect(emf._aws.CloudWatchMetrics[0]).toMatchObject({
      Namespace: 'BankDataAndPayments',
      Metrics: [{ Name: 'RedriveFailures', Unit: 'Count' }],
    });
  });
});
