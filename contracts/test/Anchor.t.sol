// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {Vm} from "forge-std/Vm.sol";
import {IServiceMarketplace} from "../src/interfaces/IServiceMarketplace.sol";
import {BaseTest} from "./Base.t.sol";

/// @notice `settle`: a batch of debits exactly as `consumeQueries` makes them, and the anchor of a receipts
/// root with its run counts, once per root.
contract AnchorTest is BaseTest {
    bytes32 internal constant ROOT = keccak256("receipts root");
    bytes32 internal constant OTHER_ROOT = keccak256("other receipts root");

    IServiceMarketplace.Debit[] internal debits;
    IServiceMarketplace.RunCount[] internal counts;

    function _settle() internal {
        _settle(ROOT);
    }

    function _settle(bytes32 root) internal {
        vm.prank(operator);
        market.settle(debits, root, counts);
        delete debits;
        delete counts;
    }

    function _debit(address buyer, uint256 runId) internal {
        debits.push(IServiceMarketplace.Debit(perQuery, buyer, runId, PRICE, true));
    }

    function _count(bytes32 listingId, uint32 runs, uint32 failed) internal {
        counts.push(IServiceMarketplace.RunCount(listingId, runs, failed));
    }

    function _anchorEvents(Vm.Log[] memory logs) internal view returns (uint256 count) {
        for (uint256 i; i < logs.length; ++i) {
            if (
                logs[i].emitter == address(market)
                    && logs[i].topics[0] == IServiceMarketplace.RunsAnchored.selector
            ) {
                ++count;
            }
        }
    }

    // ─── Anchors ──────────────────────────────────────────────────────────────

    function test_settle_AnchorsAloneAndEmits() public {
        vm.roll(42);
        _count(oneTime, 3, 1);
        _count(subscription, 2, 0);
        IServiceMarketplace.RunCount[] memory sent = counts;

        vm.expectEmit(address(market));
        emit IServiceMarketplace.RunsAnchored(ROOT, sent);
        _settle();

        assertEq(market.anchoredAt(ROOT), 42);
        assertEq(market.anchoredAt(OTHER_ROOT), 0);
        assertEq(address(market).balance, 0);
    }

    function test_settle_AnchorsCountsOfAnyListingId() public {
        _count(UNKNOWN, 5, 5);
        _count(perQuery, 0, 0);
        IServiceMarketplace.RunCount[] memory sent = counts;

        vm.expectEmit(address(market));
        emit IServiceMarketplace.RunsAnchored(ROOT, sent);
        _settle();
        assertEq(market.anchoredAt(ROOT), block.number);
    }

    function test_settle_AnchorsARootWithNoCounts() public {
        vm.expectEmit(address(market));
        emit IServiceMarketplace.RunsAnchored(ROOT, new IServiceMarketplace.RunCount[](0));
        _settle();
        assertEq(market.anchoredAt(ROOT), block.number);
    }

    function test_settle_DebitsAndAnchorsInOneCall() public {
        _buyPerQuery(renter, perQuery, PRICE * 3);
        _buyPerQuery(secondRenter, perQuery, PRICE * 2);
        _debit(renter, 1);
        _debit(secondRenter, 2);
        _count(oneTime, 4, 1);
        IServiceMarketplace.RunCount[] memory sent = counts;

        vm.expectEmit(address(market));
        emit IServiceMarketplace.QueryConsumed(perQuery, renter, 1, PRICE, _fee(PRICE), PRICE * 2, true);
        vm.expectEmit(address(market));
        emit IServiceMarketplace.QueryConsumed(perQuery, secondRenter, 2, PRICE, _fee(PRICE), PRICE, true);
        vm.expectEmit(address(market));
        emit IServiceMarketplace.RunsAnchored(ROOT, sent);
        _settle();

        assertEq(_balance(perQuery, renter), PRICE * 2);
        assertEq(_balance(perQuery, secondRenter), PRICE);
        assertEq(_escrow(perQuery) + _fees(perQuery), PRICE * 2);
        assertTrue(market.isRunRecorded(1));
        assertTrue(market.isRunRecorded(2));
        assertEq(market.anchoredAt(ROOT), block.number);
    }

    function test_settle_SkipsRefusedDebitsAsConsumeQueries() public {
        _buyPerQuery(renter, perQuery, PRICE * 2);
        _debit(renter, 1);
        _debit(stranger, 2);
        _debit(renter, 1);

        vm.expectEmit(address(market));
        emit IServiceMarketplace.QueryConsumed(perQuery, renter, 1, PRICE, _fee(PRICE), PRICE, true);
        vm.expectEmit(address(market));
        emit IServiceMarketplace.QueryNotConsumed(
            perQuery, stranger, 2, IServiceMarketplace.CredentialNotFound.selector
        );
        vm.expectEmit(address(market));
        emit IServiceMarketplace.QueryNotConsumed(
            perQuery, renter, 1, IServiceMarketplace.RunAlreadyRecorded.selector
        );
        _settle();

        assertEq(_balance(perQuery, renter), PRICE);
        assertFalse(market.isRunRecorded(2));
        assertEq(market.anchoredAt(ROOT), block.number);
    }

    function test_settle_ZeroRootDebitsAndAnchorsNothing() public {
        _buyPerQuery(renter, perQuery, PRICE * 2);
        _debit(renter, 1);

        vm.recordLogs();
        _settle(bytes32(0));

        assertEq(_anchorEvents(vm.getRecordedLogs()), 0);
        assertEq(_balance(perQuery, renter), PRICE);
        assertEq(market.anchoredAt(bytes32(0)), 0);
    }

    /// @dev A resend after a lost receipt: the root stays anchored at its first block, with its first counts,
    /// and the debits sent with it still settle.
    function test_settle_SkipsARootAlreadyAnchored() public {
        vm.roll(10);
        _count(oneTime, 1, 0);
        _settle();
        _buyPerQuery(renter, perQuery, PRICE * 2);

        vm.roll(15);
        _debit(renter, 1);
        _count(oneTime, 7, 7);
        vm.expectEmit(address(market));
        emit IServiceMarketplace.QueryConsumed(perQuery, renter, 1, PRICE, _fee(PRICE), PRICE, true);
        vm.recordLogs();
        _settle();

        Vm.Log[] memory logs = vm.getRecordedLogs();
        assertEq(_anchorEvents(logs), 0);
        assertEq(logs.length, 1);
        assertEq(market.anchoredAt(ROOT), 10);
        assertEq(_balance(perQuery, renter), PRICE);
        assertTrue(market.isRunRecorded(1));
    }

    function test_settle_AnchorsEachRootOnce() public {
        vm.roll(10);
        _settle(ROOT);
        vm.roll(11);
        _settle(OTHER_ROOT);
        vm.roll(12);
        _settle(ROOT);

        assertEq(market.anchoredAt(ROOT), 10);
        assertEq(market.anchoredAt(OTHER_ROOT), 11);
    }

    // ─── Refusals ─────────────────────────────────────────────────────────────

    function test_settle_RevertWhen_InvalidAnchor_CountsWithoutRoot() public {
        _buyPerQuery(renter, perQuery, PRICE * 2);
        _debit(renter, 1);
        _count(oneTime, 1, 0);

        vm.expectRevert(_err(IServiceMarketplace.InvalidAnchor.selector));
        _settle(bytes32(0));
        assertEq(_balance(perQuery, renter), PRICE * 2);
        assertFalse(market.isRunRecorded(1));
    }

    function test_settle_RevertWhen_InvalidAnchor_MoreFailedThanRuns() public {
        _buyPerQuery(renter, perQuery, PRICE * 2);
        _debit(renter, 1);
        _count(oneTime, 3, 3);
        _count(subscription, 2, 3);

        vm.expectRevert(_err(IServiceMarketplace.InvalidAnchor.selector));
        _settle();
        assertEq(market.anchoredAt(ROOT), 0);
        assertEq(_balance(perQuery, renter), PRICE * 2);
        assertFalse(market.isRunRecorded(1));
    }

    function test_settle_RevertWhen_Unauthorized() public {
        _buyPerQuery(renter, perQuery, PRICE * 2);
        _debit(renter, 1);
        _count(oneTime, 1, 0);

        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.Unauthorized.selector, creator));
        vm.prank(creator);
        market.settle(debits, ROOT, counts);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.Unauthorized.selector, receiptsSigner));
        vm.prank(receiptsSigner);
        market.settle(new IServiceMarketplace.Debit[](0), ROOT, counts);

        assertEq(market.anchoredAt(ROOT), 0);
        assertEq(_balance(perQuery, renter), PRICE * 2);
    }

    // ─── Pause ────────────────────────────────────────────────────────────────

    function test_settle_Paused_RevertsDebitsButAnchorsAlone() public {
        _buyPerQuery(renter, perQuery, PRICE * 2);
        _pauseProtocol();
        _debit(renter, 1);
        _count(oneTime, 1, 0);

        vm.expectRevert(_err(IServiceMarketplace.ProtocolPaused.selector));
        vm.prank(operator);
        market.settle(debits, ROOT, counts);
        assertEq(market.anchoredAt(ROOT), 0);

        delete debits;
        IServiceMarketplace.RunCount[] memory sent = counts;
        vm.expectEmit(address(market));
        emit IServiceMarketplace.RunsAnchored(ROOT, sent);
        _settle();
        assertEq(market.anchoredAt(ROOT), block.number);
        assertEq(_balance(perQuery, renter), PRICE * 2);
    }
}
