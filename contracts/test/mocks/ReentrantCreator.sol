// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {IServiceMarketplace} from "../../src/interfaces/IServiceMarketplace.sol";

/// @notice A creator contract that re-enters `withdrawEarnings` from `receive()` once per payout.
/// With `catchReentry` it swallows the reentrant call's revert (and records its data); without it the
/// revert bubbles up, making its own `receive()` fail.
contract ReentrantCreator {
    IServiceMarketplace public immutable market;
    bool public immutable catchReentry;
    bytes32 public listingId;
    uint256 public reentryAmount;
    uint256 public reentryAttempts;
    uint256 public received;
    bytes public reentryError;

    constructor(IServiceMarketplace market_, bool catchReentry_) {
        market = market_;
        catchReentry = catchReentry_;
    }

    function list(bytes32 seed, IServiceMarketplace.RentalModel model, uint96 price, string calldata uri)
        external
        returns (bytes32)
    {
        listingId = market.createListing(seed, model, price, uri);
        return listingId;
    }

    /// @notice Withdraws `amount` and, from `receive()`, tries to withdraw `reentryAmount_` again.
    function attack(uint256 amount, uint256 reentryAmount_) external {
        reentryAmount = reentryAmount_;
        market.withdrawEarnings(listingId, amount);
    }

    /// @notice A plain withdrawal: `receive()` does not re-enter when `reentryAmount` is zero.
    function withdraw(uint256 amount) external {
        reentryAmount = 0;
        market.withdrawEarnings(listingId, amount);
    }

    receive() external payable {
        received += msg.value;
        if (reentryAmount == 0) return;
        ++reentryAttempts;
        uint256 amount = reentryAmount;
        reentryAmount = 0;
        if (catchReentry) {
            try market.withdrawEarnings(listingId, amount) {}
            catch (bytes memory reason) {
                reentryError = reason;
            }
        } else {
            market.withdrawEarnings(listingId, amount);
        }
    }
}
