let on = false;

/** From now on this process counts its metrics: it serves them, or answers a cluster's primary for them. */
export function countMetrics(): void {
  on = true;
}

/** Whether metrics are counted: with METRICS_PORT unset nothing is, not even a request's duration. */
export const metricsOn = (): boolean => on;
