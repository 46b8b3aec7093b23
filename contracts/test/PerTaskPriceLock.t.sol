// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {BaseTest} from "./Base.t.sol";
import {IServiceMarketplace} from "../src/interfaces/IServiceMarketplace.sol";

/// @notice Finding "per-task price lock": a creator who raises a per-task price to a renter's whole balance
/// cannot move that balance into escrow with the next run; a deposit is spent only at a price its renter
/// agreed to.
contract PerTaskPriceLockTest is BaseTest {
    function test_finding_PriceRaisedToTheWholeBalance_NextRunDebitsTheAgreedPrice() public {
        _buyPerQuery(renter, perQuery, PRICE * 50);

        // The attack: the price becomes the renter's whole balance, then a run is debited.
        vm.prank(creator);
        market.updateListing(perQuery, PRICE * 50, NEW_URI);
        _consume(perQuery, renter, 1);

        assertEq(_balance(perQuery, renter), PRICE * 49, "only the agreed price was debited");
        assertEq(_escrow(perQuery) + _fees(perQuery), PRICE, "escrow got one run at the agreed price");
        assertTrue(_valid(perQuery, renter), "the balance still pays for runs");
    }

    function test_finding_RaiseReachesOnlyTheRenterWhoDepositsAgain() public {
        _buyPerQuery(renter, perQuery, PRICE * 5);
        _buyPerQuery(secondRenter, perQuery, PRICE * 5);
        vm.prank(creator);
        market.updateListing(perQuery, PRICE * 2, NEW_URI);
        _topUp(secondRenter, perQuery, PRICE * 2);

        _consume(perQuery, renter, 1);
        _consume(perQuery, secondRenter, 2);

        assertEq(_balance(perQuery, renter), PRICE * 4, "the renter who did not deposit again pays PRICE");
        assertEq(_balance(perQuery, secondRenter), PRICE * 5, "the renter who topped up pays the new price");
    }

    /// @dev The same attack against a deposit on its way: the creator raises the price between the moment
    /// the renter saw it and the moment the deposit lands (front-running it), so the deposit would agree.
    function test_finding_PriceRaisedBeforeTheDepositLands_DepositIsRefused() public {
        vm.prank(creator);
        market.updateListing(perQuery, PRICE * 50, NEW_URI);
        vm.expectRevert(
            abi.encodeWithSelector(IServiceMarketplace.PriceAboveLimit.selector, PRICE * 50, PRICE)
        );
        vm.prank(renter);
        market.purchasePerQuery{value: PRICE * 50}(perQuery, PRICE);
        assertEq(address(market).balance, 0, "the renter keeps the deposit");
    }

    function test_finding_PriceRaisedBeforeTheTopUpLands_TopUpIsRefused() public {
        _buyPerQuery(renter, perQuery, PRICE * 5);
        vm.prank(creator);
        market.updateListing(perQuery, PRICE * 55, NEW_URI);
        vm.expectRevert(
            abi.encodeWithSelector(IServiceMarketplace.PriceAboveLimit.selector, PRICE * 55, PRICE)
        );
        vm.prank(renter);
        market.topUpBalance{value: PRICE * 50}(perQuery, PRICE);

        _consume(perQuery, renter, 1);
        assertEq(_balance(perQuery, renter), PRICE * 4, "the balance still pays the agreed price");
    }

    function test_finding_RevertWhen_InsufficientBalance_NamesTheAgreedPrice() public {
        _buyPerQuery(renter, perQuery, PRICE + PRICE / 2);
        vm.prank(creator);
        market.updateListing(perQuery, PRICE * 100, NEW_URI);
        _consume(perQuery, renter, 1);

        vm.expectRevert(
            abi.encodeWithSelector(IServiceMarketplace.InsufficientBalance.selector, PRICE / 2, PRICE)
        );
        vm.prank(authority);
        market.consumeQuery(perQuery, renter, 2, PRICE, true);
    }
}
