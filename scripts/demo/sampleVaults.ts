// A vault that pays before it updates the balance, and the same vault fixed: what the demo auditor
// is tried on.

/** Reentrancy: withdraw() sends the balance (line 14) before zeroing it (line 16). */
export const VULNERABLE_VAULT = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

contract Vault {
    mapping(address => uint256) public balances;

    function deposit() external payable {
        balances[msg.sender] += msg.value;
    }

    function withdraw() external {
        uint256 amount = balances[msg.sender];
        require(amount > 0, "nothing to withdraw");
        (bool ok, ) = msg.sender.call{value: amount}("");
        require(ok, "transfer failed");
        balances[msg.sender] = 0;
    }
}
`;

/** The same vault, checks-effects-interactions: the balance is zeroed before the call. */
export const FIXED_VAULT = VULNERABLE_VAULT.replace(
  `        (bool ok, ) = msg.sender.call{value: amount}("");
        require(ok, "transfer failed");
        balances[msg.sender] = 0;`,
  `        balances[msg.sender] = 0;
        (bool ok, ) = msg.sender.call{value: amount}("");
        require(ok, "transfer failed");`,
);
