// The marketplace's own metrics, in prom-client's default registry: counted where things happen,
// served by `serveMetrics`. Every label's values are bounded: route templates, statuses, outcomes.
import { Counter, Histogram } from "prom-client";

export const httpRequestDuration = new Histogram({
  name: "marketplace_http_request_duration_seconds",
  help: "Time to answer an API request, by method, route template and status",
  labelNames: ["method", "route", "status"] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
});

export const rateLimitRefusals = new Counter({
  name: "marketplace_rate_limit_refusals_total",
  help: "Requests refused with 429 rate_limit_exceeded, by route template",
  labelNames: ["route"] as const,
});

export const runsEnded = new Counter({
  name: "marketplace_runs_ended_total",
  help: "Runs that ended, by status and the charge they ended with",
  labelNames: ["status", "charge"] as const,
});

export const settlementBatches = new Counter({
  name: "marketplace_settlement_batches_total",
  help: "Debit batches whose receipt was applied, by outcome (mined or reverted)",
  labelNames: ["outcome"] as const,
});

export const settlementBatchRuns = new Histogram({
  name: "marketplace_settlement_batch_runs",
  help: "Runs a mined debit batch debited",
  buckets: [1, 2, 5, 10, 25, 50, 100, 250],
});

export const runStartLatency = new Histogram({
  name: "marketplace_run_start_latency_seconds",
  help: "Time from a run's admission to a worker starting it",
  buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
});

export const settlementGasUsed = new Counter({
  name: "marketplace_settlement_gas_used_total",
  help: "Gas the applied debit batches used",
});

export const webhookDeliveries = new Counter({
  name: "marketplace_webhook_deliveries_total",
  help: "Webhook delivery attempts, by what became of the delivery: delivered, retried later or failed (given up)",
  labelNames: ["outcome"] as const,
});
