// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {IServiceMarketplace} from "../../src/interfaces/IServiceMarketplace.sol";

/// @notice Acts as a creator, renter or fee recipient whose `receive()` always reverts.
contract RejectingReceiver {
    IServiceMarketplace public immutable market;

    constructor(IServiceMarketplace market_) {
        market = market_;
    }

    function list(bytes32 seed, IServiceMarketplace.RentalModel model, uint96 price, string calldata uri)
        external
        returns (bytes32)
    {
        return market.createListing(seed, model, price, uri);
    }

    function withdrawEarnings(bytes32 listingId, uint256 amount) external {
        market.withdrawEarnings(listingId, amount);
    }

    function closeListing(bytes32 listingId) external {
        market.closeListing(listingId);
    }

    function buyPerQuery(bytes32 listingId) external payable {
        (, uint96 price,,,,) = market.listings(listingId);
        market.purchasePerQuery{value: msg.value}(listingId, price);
    }

    function reclaimBalance(bytes32 listingId) external {
        market.reclaimBalance(listingId);
    }

    function withdrawFees(bytes32[] calldata listingIds) external {
        market.withdrawFees(listingIds);
    }

    receive() external payable {
        revert("RejectingReceiver: no ETH");
    }
}
