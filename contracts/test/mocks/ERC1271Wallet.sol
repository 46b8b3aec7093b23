// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @notice A smart contract wallet as ERC-1271 sees it: a signature is valid when its owner's key made it.
contract ERC1271Wallet {
    bytes4 internal constant VALID = 0x1626ba7e;
    bytes4 internal constant INVALID = 0xffffffff;

    address public immutable owner;

    constructor(address owner_) {
        owner = owner_;
    }

    /// @notice ERC-1271: `0x1626ba7e` when `owner` signed `hash` (65 bytes r, s, v), otherwise `0xffffffff`.
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        if (signature.length != 65) return INVALID;
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        return ecrecover(hash, v, r, s) == owner ? VALID : INVALID;
    }
}
