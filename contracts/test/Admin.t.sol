// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {BaseTest} from "./Base.t.sol";
import {IServiceMarketplace} from "../src/interfaces/IServiceMarketplace.sol";

/// @notice Authority functions, the protocol pause and fee collection.
contract AdminTest is BaseTest {
    // ─── setFeeBasisPoints ────────────────────────────────────────────────────

    function test_setFeeBasisPoints_UpdatesAndEmits() public {
        vm.expectEmit(address(market));
        emit IServiceMarketplace.FeeBasisPointsUpdated(DEFAULT_FEE_BPS, 500);
        vm.prank(authority);
        market.setFeeBasisPoints(500);
        assertEq(market.feeBasisPoints(), 500);

        vm.expectEmit(address(market));
        emit IServiceMarketplace.FeeBasisPointsUpdated(500, MAX_FEE_BPS);
        vm.prank(authority);
        market.setFeeBasisPoints(MAX_FEE_BPS);
        assertEq(market.feeBasisPoints(), MAX_FEE_BPS);

        vm.expectEmit(address(market));
        emit IServiceMarketplace.FeeBasisPointsUpdated(MAX_FEE_BPS, 0);
        vm.prank(authority);
        market.setFeeBasisPoints(0);
        assertEq(market.feeBasisPoints(), 0);
    }

    function test_setFeeBasisPoints_AppliesToNextSaleAndRun() public {
        _setFee(MAX_FEE_BPS);
        _buyOneTime(renter, oneTime);
        assertEq(_fees(oneTime), PRICE / 10);
        assertEq(_escrow(oneTime), PRICE - PRICE / 10);

        _buyPerQuery(renter, perQuery, PRICE * 2);
        _setFee(0);
        _consume(perQuery, renter, 1);
        assertEq(_fees(perQuery), 0);
        assertEq(_escrow(perQuery), PRICE);

        // Earlier sales keep the fee they were charged.
        assertEq(_fees(oneTime), PRICE / 10);
    }

    function test_setFeeBasisPoints_RevertWhen_FeeTooHigh() public {
        vm.expectRevert(
            abi.encodeWithSelector(IServiceMarketplace.FeeTooHigh.selector, MAX_FEE_BPS + 1, MAX_FEE_BPS)
        );
        vm.prank(authority);
        market.setFeeBasisPoints(MAX_FEE_BPS + 1);
        vm.expectRevert(
            abi.encodeWithSelector(IServiceMarketplace.FeeTooHigh.selector, type(uint256).max, MAX_FEE_BPS)
        );
        vm.prank(authority);
        market.setFeeBasisPoints(type(uint256).max);
        assertEq(market.feeBasisPoints(), DEFAULT_FEE_BPS);
    }

    function test_setFeeBasisPoints_RevertWhen_Unauthorized() public {
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.Unauthorized.selector, feeRecipient));
        vm.prank(feeRecipient);
        market.setFeeBasisPoints(100);
    }

    // ─── setFeeRecipient ──────────────────────────────────────────────────────

    function test_setFeeRecipient_UpdatesAndEmits() public {
        vm.expectEmit(address(market));
        emit IServiceMarketplace.FeeRecipientUpdated(feeRecipient, stranger);
        vm.prank(authority);
        market.setFeeRecipient(stranger);
        assertEq(market.feeRecipient(), stranger);
    }

    function test_setFeeRecipient_MovesFeeCollection() public {
        _buyOneTime(renter, oneTime);
        uint256 fees = _fees(oneTime);
        vm.prank(authority);
        market.setFeeRecipient(stranger);

        bytes32[] memory ids = _ids(oneTime);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.Unauthorized.selector, feeRecipient));
        vm.prank(feeRecipient);
        market.withdrawFees(ids);

        uint256 before = stranger.balance;
        vm.prank(stranger);
        market.withdrawFees(ids);
        assertEq(stranger.balance - before, fees);
    }

    function test_setFeeRecipient_RevertWhen_ZeroAddress() public {
        vm.expectRevert(_err(IServiceMarketplace.ZeroAddress.selector));
        vm.prank(authority);
        market.setFeeRecipient(address(0));
    }

    function test_setFeeRecipient_RevertWhen_Unauthorized() public {
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.Unauthorized.selector, feeRecipient));
        vm.prank(feeRecipient);
        market.setFeeRecipient(stranger);
    }

    // ─── setReceiptsSigner ────────────────────────────────────────────────────

    function test_setReceiptsSigner_UpdatesAndEmits() public {
        vm.expectEmit(address(market));
        emit IServiceMarketplace.ReceiptsSignerChanged(receiptsSigner, stranger);
        vm.prank(authority);
        market.setReceiptsSigner(stranger);
        assertEq(market.receiptsSigner(), stranger);
    }

    function test_setReceiptsSigner_RevertWhen_ZeroAddress() public {
        vm.expectRevert(_err(IServiceMarketplace.ZeroAddress.selector));
        vm.prank(authority);
        market.setReceiptsSigner(address(0));
        assertEq(market.receiptsSigner(), receiptsSigner);
    }

    function test_setReceiptsSigner_RevertWhen_Unauthorized() public {
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.Unauthorized.selector, operator));
        vm.prank(operator);
        market.setReceiptsSigner(operator);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.Unauthorized.selector, receiptsSigner));
        vm.prank(receiptsSigner);
        market.setReceiptsSigner(stranger);
        assertEq(market.receiptsSigner(), receiptsSigner);
    }

    // ─── transferAuthority ────────────────────────────────────────────────────

    function test_transferAuthority_TransfersAndEmits() public {
        vm.expectEmit(address(market));
        emit IServiceMarketplace.AuthorityTransferred(authority, stranger);
        vm.prank(authority);
        market.transferAuthority(stranger);
        assertEq(market.authority(), stranger);

        _buyPerQuery(renter, perQuery, PRICE * 2);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.Unauthorized.selector, authority));
        vm.prank(authority);
        market.consumeQuery(perQuery, renter, 1, PRICE, true);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.Unauthorized.selector, authority));
        vm.prank(authority);
        market.setPaused(true);

        vm.prank(stranger);
        market.consumeQuery(perQuery, renter, 1, PRICE, true);
        assertEq(_balance(perQuery, renter), PRICE);
    }

    function test_transferAuthority_RevertWhen_ZeroAddress() public {
        vm.expectRevert(_err(IServiceMarketplace.ZeroAddress.selector));
        vm.prank(authority);
        market.transferAuthority(address(0));
    }

    function test_transferAuthority_RevertWhen_Unauthorized() public {
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.Unauthorized.selector, stranger));
        vm.prank(stranger);
        market.transferAuthority(stranger);
    }

    // ─── setPaused ────────────────────────────────────────────────────────────

    function test_setPaused_PausesUnpausesAndEmits() public {
        vm.expectEmit(address(market));
        emit IServiceMarketplace.PausedSet(true);
        vm.prank(authority);
        market.setPaused(true);
        assertTrue(market.paused());

        vm.expectEmit(address(market));
        emit IServiceMarketplace.PausedSet(false);
        vm.prank(authority);
        market.setPaused(false);
        assertFalse(market.paused());

        _buyOneTime(renter, oneTime);
        assertTrue(_valid(oneTime, renter));
    }

    function test_setPaused_RevertWhen_Unauthorized() public {
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.Unauthorized.selector, creator));
        vm.prank(creator);
        market.setPaused(true);
    }

    function test_setPaused_BlocksSalesAndRuns() public {
        _buySubscription(renter, subscription, 30 days);
        _buyPerQuery(renter, perQuery, PRICE * 2);
        _pauseProtocol();
        bytes memory paused = _err(IServiceMarketplace.ProtocolPaused.selector);

        vm.startPrank(secondRenter);
        vm.expectRevert(paused);
        market.createListing(bytes32(uint256(77)), ONE_TIME, PRICE, URI);
        vm.expectRevert(paused);
        market.purchaseOneTime{value: PRICE}(oneTime);
        vm.expectRevert(paused);
        market.purchaseSubscription{value: PRICE}(subscription, 30 days);
        vm.expectRevert(paused);
        market.purchasePerQuery{value: PRICE}(perQuery, PRICE);
        vm.stopPrank();

        vm.startPrank(renter);
        vm.expectRevert(paused);
        market.renewSubscription{value: PRICE}(subscription, 30 days);
        vm.expectRevert(paused);
        market.topUpBalance{value: PRICE}(perQuery, PRICE);
        vm.stopPrank();

        vm.expectRevert(paused);
        vm.prank(authority);
        market.consumeQuery(perQuery, renter, 1, PRICE, true);
    }

    function test_setPaused_KeepsCredentialsValid() public {
        _buyOneTime(renter, oneTime);
        _buySubscription(renter, subscription, 30 days);
        _buyPerQuery(renter, perQuery, PRICE * 2);
        _pauseProtocol();
        assertTrue(_valid(oneTime, renter));
        assertTrue(_valid(subscription, renter));
        assertTrue(_valid(perQuery, renter));
        // Subscription time keeps running while paused.
        vm.warp(START + 30 days);
        assertFalse(_valid(subscription, renter));
        assertTrue(_valid(oneTime, renter));
    }

    function test_setPaused_NeverBlocksExits() public {
        _buyOneTime(renter, oneTime);
        _buyOneTime(secondRenter, oneTime);
        _buyPerQuery(renter, perQuery, PRICE * 3);
        _buyPerQuery(secondRenter, perQuery, PRICE * 3);
        _consume(perQuery, renter, 1);
        _pauseProtocol();

        // Revocations.
        vm.startPrank(creator);
        market.revokeAccess(oneTime, secondRenter);
        market.revokePerQueryAccess(perQuery, renter);
        vm.stopPrank();
        assertFalse(_valid(oneTime, secondRenter));
        assertFalse(_valid(perQuery, renter));

        // Reclaim.
        vm.prank(renter);
        market.reclaimBalance(perQuery);
        assertEq(_balance(perQuery, renter), 0);

        // Creator withdrawal.
        uint256 escrow = _escrow(oneTime);
        vm.prank(creator);
        market.withdrawEarnings(oneTime, escrow);
        assertEq(creator.balance, escrow);

        // Fee withdrawal.
        uint256 fees = _fees(oneTime) + _fees(perQuery);
        bytes32[] memory ids = new bytes32[](2);
        ids[0] = oneTime;
        ids[1] = perQuery;
        vm.prank(feeRecipient);
        market.withdrawFees(ids);
        assertEq(feeRecipient.balance, fees);

        // Listing management.
        _withdrawAll(perQuery);
        _close(perQuery);
        vm.prank(secondRenter);
        market.reclaimBalance(perQuery);
        assertEq(address(market).balance, 0);
    }

    // ─── withdrawFees ─────────────────────────────────────────────────────────

    function test_withdrawFees_CollectsAcrossListingsAndEmits() public {
        _buyOneTime(renter, oneTime);
        _buySubscription(renter, subscription, 90 days);
        _buyPerQuery(renter, perQuery, PRICE * 2);
        _consume(perQuery, renter, 1);
        uint256 total = _fees(oneTime) + _fees(subscription) + _fees(perQuery);
        assertGt(total, 0);

        bytes32[] memory ids = new bytes32[](5);
        ids[0] = oneTime;
        ids[1] = subscription;
        ids[2] = perQuery;
        ids[3] = oneTime; // duplicates add nothing
        ids[4] = UNKNOWN; // unknown ids add nothing

        vm.expectEmit(address(market));
        emit IServiceMarketplace.FeesWithdrawn(feeRecipient, total, ids);
        vm.prank(feeRecipient);
        market.withdrawFees(ids);

        assertEq(feeRecipient.balance, total);
        assertEq(_fees(oneTime), 0);
        assertEq(_fees(subscription), 0);
        assertEq(_fees(perQuery), 0);
        assertEq(
            address(market).balance,
            _escrow(oneTime) + _escrow(subscription) + _escrow(perQuery) + _balance(perQuery, renter)
        );
    }

    function test_withdrawFees_LeavesOtherListingsAlone() public {
        _buyOneTime(renter, oneTime);
        _buySubscription(renter, subscription, 30 days);
        uint256 subscriptionFees = _fees(subscription);
        vm.prank(feeRecipient);
        market.withdrawFees(_ids(oneTime));
        assertEq(_fees(oneTime), 0);
        assertEq(_fees(subscription), subscriptionFees);
    }

    function test_withdrawFees_RevertWhen_Unauthorized() public {
        _buyOneTime(renter, oneTime);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.Unauthorized.selector, authority));
        vm.prank(authority);
        market.withdrawFees(_ids(oneTime));
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.Unauthorized.selector, creator));
        vm.prank(creator);
        market.withdrawFees(_ids(oneTime));
    }

    function test_withdrawFees_RevertWhen_NothingToWithdraw() public {
        vm.expectRevert(_err(IServiceMarketplace.NothingToWithdraw.selector));
        vm.prank(feeRecipient);
        market.withdrawFees(_ids(oneTime));

        vm.expectRevert(_err(IServiceMarketplace.NothingToWithdraw.selector));
        vm.prank(feeRecipient);
        market.withdrawFees(new bytes32[](0));
    }

    function test_withdrawFees_RevertWhen_NothingToWithdraw_AlreadyCollected() public {
        _buyOneTime(renter, oneTime);
        vm.prank(feeRecipient);
        market.withdrawFees(_ids(oneTime));
        vm.expectRevert(_err(IServiceMarketplace.NothingToWithdraw.selector));
        vm.prank(feeRecipient);
        market.withdrawFees(_ids(oneTime));
    }

    function test_withdrawFees_ZeroFeeSalesAccrueNothing() public {
        _setFee(0);
        _buyOneTime(renter, oneTime);
        assertEq(_fees(oneTime), 0);
        assertEq(_escrow(oneTime), PRICE);
        vm.expectRevert(_err(IServiceMarketplace.NothingToWithdraw.selector));
        vm.prank(feeRecipient);
        market.withdrawFees(_ids(oneTime));
    }

    function _ids(bytes32 id) private pure returns (bytes32[] memory ids) {
        ids = new bytes32[](1);
        ids[0] = id;
    }
}
