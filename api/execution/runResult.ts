// A run's answer is the run ledger's to say (lib/runLedger/runView.ts): the workers' webhooks send it
// too. The API's modules import it from here.
export { apiRunStatus, costOf, isAnswered, runResult } from "../../lib/runLedger/runView.ts";
