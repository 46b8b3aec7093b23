// The demo auditor's findings (what `npm start`'s "Solidity Contract Auditor" answers): the
// reentrancy of a vault that pays before it updates the balance, with its lines, severity and fix;
// nothing once the vault updates first; always an output its listing's output_schema accepts.
import { describe, expect, it } from "vitest";
import { compileSchema } from "../../lib/manifest/compileInputValidator.ts";
import { auditSolidity } from "./auditSolidity.ts";
import { demoAgents } from "./demoAgents.ts";
import { FIXED_VAULT, VULNERABLE_VAULT } from "./sampleVaults.ts";

const [auditor] = demoAgents("");
const fitsOutputSchema = compileSchema(auditor.manifest.output_schema);
const audit = (source: string) => {
  const output = { findings: auditSolidity(source) };
  expect(fitsOutputSchema(output), JSON.stringify(fitsOutputSchema.errors)).toBe(true);
  return output.findings;
};

describe("the demo auditor", () => {
  it("flags the call before the balance update as a high-severity reentrancy, with both lines and the fix", () => {
    expect(audit(VULNERABLE_VAULT)).toEqual([
      'High: reentrancy in withdraw(): line 14 makes an external call (msg.sender.call{value: amount}("")) before line 16 updates balances, so the callee can call withdraw() again while balances still holds the old value and be paid twice. Fix: update balances before the call (checks-effects-interactions), or guard withdraw() with a nonReentrant modifier.',
    ]);
  });

  it("finds nothing wrong once the balance is zeroed before the call, or the function is nonReentrant", () => {
    const clean = [
      "Info: no reentrancy found in 2 functions: every external call comes after the state updates it depends on.",
    ];
    expect(audit(FIXED_VAULT)).toEqual(clean);
    expect(
      audit(VULNERABLE_VAULT.replace("withdraw() external", "withdraw() external nonReentrant")),
    ).toEqual(clean);
  });

  it("counts lines of the source as given, comments included, and flags tx.origin authorisation", () => {
    const source = `/* Vault v2
   audited? */
${VULNERABLE_VAULT.replace(
  "    function deposit()",
  `    address owner;

    function sweep(address payable to) external {
        require(tx.origin == owner);
        to.transfer(address(this).balance);
    }

    function deposit()`,
)}`;
    const findings = audit(source);
    expect(findings[0]).toMatch(
      /^High: reentrancy in withdraw\(\): line 23 .* before line 25 updates balances/,
    );
    expect(findings[1]).toBe(
      "Medium: line 12 authorises with tx.origin, so any contract the owner calls can act as the owner. Fix: compare msg.sender instead.",
    );
  });

  it("says so when what it is given holds no Solidity function", () => {
    expect(audit("Please audit my contract")).toEqual([
      "Info: no Solidity function found in the source given.",
    ]);
  });
});
