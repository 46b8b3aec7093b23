// The indexer as a process of its own, beside `npm run api` and `npm run workers`: `ponder start`
// under its supervisor (devStack/startPonder.ts), which restarts it when it stalls and records its
// progress for the API's `GET /v1/indexer`. Stops Ponder and the supervisor on SIGTERM or SIGINT.
import { readFileSync } from "node:fs";
import { z } from "zod/v4";
import { indexerSchemaName } from "../devStack/indexerSchemaName.ts";
import { startPonder } from "../devStack/startPonder.ts";
import { parseDeployment } from "../lib/chain/deploymentFile.ts";
import { deploymentFileOf, envFields, parseEnvironment } from "../lib/env.ts";
import { stopOnSignal } from "../lib/stopOnSignal.ts";

const env = parseEnvironment(
  z.object(
    envFields(
      "DATABASE_URL",
      "RPC_URL",
      "DATA_DIR",
      "DEPLOYMENT_FILE",
      "PONDER_PORT",
      "VIEWS_SCHEMA",
      "LOG_LEVEL",
    ),
  ),
);
const deploymentFile = deploymentFileOf(env);
const deployment = parseDeployment(readFileSync(deploymentFile, "utf8"));

const ponder = await startPonder({
  port: env.PONDER_PORT,
  databaseUrl: env.DATABASE_URL,
  rpcUrl: env.RPC_URL,
  deploymentFile,
  schema: indexerSchemaName(deployment),
  viewsSchema: env.VIEWS_SCHEMA,
  onOutput: (line) => process.stdout.write(line),
});
stopOnSignal(() => ponder.stop());
