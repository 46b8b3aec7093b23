import { sql } from "drizzle-orm";
import type { Database } from "../../lib/db/projections.ts";
import type { Logger } from "../../lib/log.ts";
import { REVOCATION_WAIT_MS } from "../limits.ts";
import { LISTENER_APPLICATION, type PostgresListener } from "../process/postgresListener.ts";

/** Each listening process says here that it dropped a revoked key: `<listener id> <key id>`. */
export const REVOCATION_SEEN_CHANNEL = "api_key_revocation_seen";

export type RevocationReceipts = ReturnType<typeof createRevocationReceipts>;

type Receipt = { seen: Set<string>; wake: () => void };

/**
 * Lets a revocation answer only once every API process that listens has dropped the key, so the
 * next request with it fails whichever process it reaches. Processes that do not listen cache
 * nothing; one whose listening failed unnoticed is covered by its cache's revalidation.
 */
export function createRevocationReceipts({
  db,
  listener,
  log,
}: {
  db: Database;
  listener: PostgresListener;
  log: Logger;
}) {
  /** Key id → for each revocation waiting, the listeners that confirmed and how to wake it. */
  const expected = new Map<string, Set<Receipt>>();

  listener.on(REVOCATION_SEEN_CHANNEL, (payload) => {
    const [listenerId = "", keyId = ""] = payload.split(" ");
    for (const receipt of expected.get(keyId) ?? []) {
      receipt.seen.add(listenerId);
      receipt.wake();
    }
  });
  const stopExpecting = (keyId: string, receipt: Receipt) => {
    const receipts = expected.get(keyId);
    receipts?.delete(receipt);
    if (receipts?.size === 0) expected.delete(keyId);
  };

  return {
    /** Says that this process dropped `keyId`. */
    confirm(keyId: string) {
      listener.notify(REVOCATION_SEEN_CHANNEL, `${listener.id} ${keyId}`).catch((error) => {
        log.warn("could not confirm a revocation", { key_id: keyId, error: String(error) });
      });
    },
    /** Begins collecting confirmations for `keyId`: call before the revocation commits. */
    expect(keyId: string) {
      const receipt: Receipt = { seen: new Set(), wake: () => {} };
      expected.set(keyId, (expected.get(keyId) ?? new Set()).add(receipt));
      return {
        /** Resolves once every listener now connected confirmed, or after `REVOCATION_WAIT_MS`. */
        async everywhere() {
          const deadline = performance.now() + REVOCATION_WAIT_MS;
          try {
            const listening = await liveListeners(db);
            for (;;) {
              const missing = listening.filter((id) => !receipt.seen.has(id));
              const left = deadline - performance.now();
              if (missing.length === 0) return;
              if (left <= 0) {
                log.warn("a revocation was not confirmed by every API process in time", {
                  key_id: keyId,
                  listeners: missing,
                });
                return;
              }
              await new Promise<void>((resolve) => {
                const timer = setTimeout(resolve, left);
                receipt.wake = () => {
                  clearTimeout(timer);
                  resolve();
                };
              });
            }
          } finally {
            stopExpecting(keyId, receipt);
          }
        },
        /** Stops collecting, for a revocation that did not happen. */
        cancel: () => stopExpecting(keyId, receipt),
      };
    },
  };
}

/** The ids of the listeners connected to this database now. */
async function liveListeners(db: Database): Promise<string[]> {
  const rows = (await db.execute(
    sql`select substr(application_name, ${LISTENER_APPLICATION.length + 2}) as id
        from pg_stat_activity
        where datname = current_database() and application_name like ${`${LISTENER_APPLICATION} %`}`,
  )) as unknown as { id: string }[];
  return rows.map((row) => row.id);
}
