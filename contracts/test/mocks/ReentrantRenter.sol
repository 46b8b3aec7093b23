// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {IServiceMarketplace} from "../../src/interfaces/IServiceMarketplace.sol";

/// @notice A per-task renter that re-enters `reclaimBalance` from `receive()` and records the revert data.
contract ReentrantRenter {
    IServiceMarketplace public immutable market;
    bytes32 public listingId;
    bool private _reenter;
    uint256 public received;
    bytes public reentryError;

    constructor(IServiceMarketplace market_) {
        market = market_;
    }

    function buy(bytes32 listingId_) external payable {
        listingId = listingId_;
        (, uint96 price,,,,) = market.listings(listingId_);
        market.purchasePerQuery{value: msg.value}(listingId_, price);
    }

    function reclaim() external {
        _reenter = true;
        market.reclaimBalance(listingId);
    }

    receive() external payable {
        received += msg.value;
        if (!_reenter) return;
        _reenter = false;
        try market.reclaimBalance(listingId) {}
        catch (bytes memory reason) {
            reentryError = reason;
        }
    }
}
