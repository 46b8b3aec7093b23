import type { ReceiptDocument, ReceiptVerification } from "@service/sdk";
import { ErrorMessage } from "../ui/ErrorMessage.tsx";
import { Loading } from "../ui/Loading.tsx";
import { isPending, type ReceiptCheck, useReceiptCheck } from "./useReceiptCheck.ts";

/** The run's signed receipt, and whether the chain bears it out: signature, Merkle proof, anchor. */
export function ReceiptSection({ runId }: { runId: string }) {
  const check = useReceiptCheck(runId);
  return (
    <section aria-labelledby="receipt-title" className="card">
      <h2 id="receipt-title">Receipt</h2>
      {check.isPending && <Loading label="Checking the run's receipt" />}
      <ErrorMessage error={check.error} />
      {check.data && <ReceiptChecks check={check.data} />}
    </section>
  );
}

function ReceiptChecks({ check }: { check: ReceiptCheck }) {
  if (check.state === "not-final") {
    return (
      <p data-testid="receipt-status">Pending: the receipt comes once the run's cost is final.</p>
    );
  }
  const { document } = check;
  if (check.state === "unchecked") {
    return (
      <p data-testid="receipt-status">
        Not checked: the dashboard knows no public RPC endpoint of the chain. Check it with{" "}
        <code>npm run verify-receipt</code>.
      </p>
    );
  }
  const { result } = check;
  const anchor = document.anchor;
  return (
    <>
      <p data-testid="receipt-status" className={statusClass(check)}>
        {statusText(check)}
      </p>
      <dl className="facts" aria-label="Receipt checks">
        <dt>Signature</dt>
        <dd data-testid="receipt-signature" className={passClass(result.signature)}>
          {result.signature
            ? "Valid: signed by the marketplace's receipts key"
            : "Invalid: not signed by the marketplace's receipts key"}
        </dd>
        <dt>Inclusion</dt>
        <dd data-testid="receipt-inclusion" className={anchor ? passClass(result.inclusion) : ""}>
          {anchor
            ? result.inclusion
              ? "Valid: in the batch of Merkle root "
              : "Invalid: the Merkle proof does not lead to root "
            : "Pending: the batch is not anchored yet"}
          {anchor && <code>{anchor.root}</code>}
        </dd>
        <dt>Anchored</dt>
        <dd data-testid="receipt-anchored" className={anchor ? passClass(result.anchored) : ""}>
          {anchor ? <AnchorText anchor={anchor} anchored={result.anchored} /> : "Pending"}
        </dd>
      </dl>
      {!isPending(check) && result.problems.length > 0 && (
        <ul aria-label="Problems" className="receipt-problems">
          {result.problems.map((problem) => (
            <li key={problem}>{problem}</li>
          ))}
        </ul>
      )}
    </>
  );
}

function AnchorText({
  anchor,
  anchored,
}: {
  anchor: NonNullable<ReceiptDocument["anchor"]>;
  anchored: boolean;
}) {
  return (
    <>
      {anchored ? `At block ${anchor.block}, transaction ` : "Invalid: the chain does not hold "}
      {anchored ? <code>{anchor.transaction}</code> : `this root at block ${anchor.block}`}
    </>
  );
}

function statusText(check: { document: ReceiptDocument; result: ReceiptVerification }): string {
  if (check.result.valid) return "Verified against the chain";
  if (check.document.anchor === null && check.result.signature) {
    return "Pending: signed; its batch is not anchored on-chain yet";
  }
  return "Not valid";
}

function statusClass(check: { document: ReceiptDocument; result: ReceiptVerification }): string {
  if (check.result.valid) return "check-passed";
  return check.document.anchor === null && check.result.signature ? "" : "check-failed";
}

const passClass = (holds: boolean) => (holds ? "check-passed" : "check-failed");
