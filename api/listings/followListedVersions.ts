import { switchListedVersions } from "../../lib/agents/switchListedVersions.ts";
import type { Database } from "../../lib/db/projections.ts";
import { isUndefinedTable } from "../../lib/db/undefinedTable.ts";
import type { Logger } from "../../lib/log.ts";
import type { PostgresListener } from "../process/postgresListener.ts";
import { indexedBlockChannel } from "./catalogueCache.ts";

/**
 * Switches agents to the version their listing's on-chain `metadata_uri` names at each block Ponder
 * indexes (and when listening starts, for blocks whose notice was missed), so that an
 * `updateListing` reaches the catalogue at once: the switch's `agents_changed` notice clears every
 * process's catalogue answers. Every API process does it; the switch is idempotent.
 */
export function followListedVersions({
  db,
  listener,
  viewsSchema,
  log,
}: {
  db: Database;
  listener: PostgresListener;
  viewsSchema: string;
  log: Logger;
}) {
  let running: Promise<void> | undefined;
  let again = false;
  let viewsSeen = false;
  const follow = () => {
    if (running) {
      again = true;
      return;
    }
    running = switchListedVersions(db)
      .then(
        () => {
          viewsSeen = true;
        },
        (error: unknown) => {
          // Before the indexer has made its views there is no listing to follow; views that were
          // there and are gone are a fault like any other.
          if (!viewsSeen && isUndefinedTable(error)) return;
          log.warn("could not switch agents to their listed versions; the next block retries", {
            error: error instanceof Error ? error.message : String(error),
          });
        },
      )
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          follow();
        }
      });
  };
  listener.on(indexedBlockChannel(viewsSchema), follow);
  listener.onListening(follow);
}
