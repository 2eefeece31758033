/**
 * Powertools Metrics (CloudWatch embedded metric format, written to the logs: no API call), created
 * once per process. Every metric here is a single metric, written at once: no flush to forget.
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { observabilityConfig } from '#shared/config';
import type { DepositObserver } from '#shared/deposits/ports/messaging';

const { POWERTOOLS_METRICS_NAMESPACE, POWERTOOLS_SERVICE_NAME } = observabilityConfig();

export const metrics = new Metrics({
  namespace: POWERTOOLS_METRICS_NAMESPACE,
  serviceName: POWERTOOLS_SERVICE_NAME ?? 'deposits',
});

/** `DepositTransitions` by status and step: the dashboard's deposits by status and step. */
export const depositMetrics: DepositObserver = {
  transitioned(status, step) {
    const metric = metrics.singleMetric();
    metric.addDimensions({ status, step });
    metric.addMetric('DepositTransitions', MetricUnit.Count, 1);
  },
};

/**
 * `RedriveFailures`, once per sweeper run: the deposits it could not re-drive (their defer or send
 * threw; each is in the run's logs with its id, and stays due for a later run). Zero on a run without.
 */
export function countRedriveFailures(failed: number): void {
  const metric = metrics.singleMetric();
  metric.addMetric('RedriveFailures', MetricUnit.Count, failed);
}
