// Shared with the workers, whose webhooks carry runs as the API answers them.
export { exactJson } from "../../lib/exactJson.ts";
