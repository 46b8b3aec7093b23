// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {BaseTest} from "./Base.t.sol";
import {IServiceMarketplace} from "../src/interfaces/IServiceMarketplace.sol";
import {ReentrantCreator} from "./mocks/ReentrantCreator.sol";
import {ReentrantRenter} from "./mocks/ReentrantRenter.sol";
import {RejectingReceiver} from "./mocks/RejectingReceiver.sol";

/// @notice Hostile recipients: reentrant creators and renters, and contracts that reject ETH.
contract MaliciousTest is BaseTest {
    bytes32 internal constant ATTACK_SEED = bytes32(uint256(666));

    // ─── Reentrant creator ────────────────────────────────────────────────────

    function _attacker(bool catchReentry) internal returns (ReentrantCreator attacker, uint256 escrow) {
        attacker = new ReentrantCreator(market, catchReentry);
        bytes32 id = attacker.list(ATTACK_SEED, ONE_TIME, PRICE, URI);
        _buyOneTime(renter, id);
        _buyOneTime(secondRenter, id);
        escrow = _escrow(id);
    }

    function test_withdrawEarnings_RevertWhen_Reentrancy_CaughtReentryGetsExactlyOnce() public {
        (ReentrantCreator attacker, uint256 escrow) = _attacker(true);
        bytes32 id = attacker.listingId();
        uint256 half = escrow / 2;
        uint256 marketBefore = address(market).balance;

        vm.expectEmit(address(market));
        emit IServiceMarketplace.EarningsWithdrawn(id, address(attacker), half);
        attacker.attack(half, escrow - half);

        assertEq(attacker.reentryAttempts(), 1);
        assertEq(attacker.reentryError(), _err(IServiceMarketplace.Reentrancy.selector));
        assertEq(attacker.received(), half);
        assertEq(address(attacker).balance, half);
        assertEq(_escrow(id), escrow - half);
        assertEq(address(market).balance, marketBefore - half);

        // The rest is still the creator's, paid once, and nothing more.
        attacker.withdraw(escrow - half);
        assertEq(address(attacker).balance, escrow);
        assertEq(_escrow(id), 0);
        vm.expectRevert(_err(IServiceMarketplace.NothingToWithdraw.selector));
        attacker.withdraw(1);
        assertEq(address(market).balance, _fees(id));
    }

    function test_withdrawEarnings_RevertWhen_TransferFailed_ReentrancyBubbles() public {
        (ReentrantCreator attacker, uint256 escrow) = _attacker(false);
        bytes32 id = attacker.listingId();
        uint256 half = escrow / 2;
        uint256 marketBefore = address(market).balance;

        // The reentrant call reverts with Reentrancy, failing receive(), so the payout itself fails.
        vm.expectRevert(
            abi.encodeWithSelector(IServiceMarketplace.TransferFailed.selector, address(attacker), half)
        );
        attacker.attack(half, escrow - half);

        assertEq(_escrow(id), escrow);
        assertEq(address(attacker).balance, 0);
        assertEq(attacker.reentryAttempts(), 0);
        assertEq(address(market).balance, marketBefore);

        // Without re-entering it collects exactly its escrow.
        attacker.withdraw(escrow);
        assertEq(address(attacker).balance, escrow);
        assertEq(_escrow(id), 0);
    }

    // ─── Reentrant renter ─────────────────────────────────────────────────────

    function test_reclaimBalance_RevertWhen_Reentrancy_CaughtReentryGetsExactlyOnce() public {
        ReentrantRenter attacker = new ReentrantRenter(market);
        vm.deal(address(this), PRICE * 4);
        attacker.buy{value: PRICE * 4}(perQuery);
        _consume(perQuery, address(attacker), 1);
        vm.prank(creator);
        market.revokePerQueryAccess(perQuery, address(attacker));

        attacker.reclaim();
        assertEq(attacker.reentryError(), _err(IServiceMarketplace.Reentrancy.selector));
        assertEq(attacker.received(), PRICE * 3);
        assertEq(address(attacker).balance, PRICE * 3);
        assertEq(_balance(perQuery, address(attacker)), 0);
        assertEq(address(market).balance, PRICE);
    }

    // ─── Creator rejecting ETH ────────────────────────────────────────────────

    function test_withdrawEarnings_RevertWhen_TransferFailed() public {
        RejectingReceiver rejecting = new RejectingReceiver(market);
        bytes32 bad = rejecting.list(ATTACK_SEED, ONE_TIME, PRICE, URI);
        _buyOneTime(renter, bad);
        _buyOneTime(renter, oneTime);
        uint256 escrow = _escrow(bad);

        vm.expectRevert(
            abi.encodeWithSelector(IServiceMarketplace.TransferFailed.selector, address(rejecting), escrow)
        );
        rejecting.withdrawEarnings(bad, escrow);
        assertEq(_escrow(bad), escrow);
        assertEq(address(rejecting).balance, 0);

        // Everyone else is unaffected: other creators withdraw, sales go on, fees are collectable.
        uint256 good = _escrow(oneTime);
        vm.prank(creator);
        market.withdrawEarnings(oneTime, good);
        assertEq(creator.balance, good);

        _buyOneTime(secondRenter, bad);
        assertTrue(_valid(bad, secondRenter));
        assertEq(_escrow(bad), 2 * escrow);

        bytes32[] memory ids = new bytes32[](2);
        ids[0] = bad;
        ids[1] = oneTime;
        uint256 fees = _fees(bad) + _fees(oneTime);
        vm.prank(feeRecipient);
        market.withdrawFees(ids);
        assertEq(feeRecipient.balance, fees);
        assertEq(address(market).balance, _escrow(bad));
    }

    // ─── Renter rejecting ETH ─────────────────────────────────────────────────

    function test_reclaimBalance_RevertWhen_TransferFailed() public {
        RejectingReceiver rejecting = new RejectingReceiver(market);
        vm.deal(address(this), PRICE * 2);
        rejecting.buyPerQuery{value: PRICE * 2}(perQuery);
        vm.prank(creator);
        market.revokePerQueryAccess(perQuery, address(rejecting));

        vm.expectRevert(
            abi.encodeWithSelector(IServiceMarketplace.TransferFailed.selector, address(rejecting), PRICE * 2)
        );
        rejecting.reclaimBalance(perQuery);
        assertEq(_balance(perQuery, address(rejecting)), PRICE * 2);

        // Other renters still reclaim.
        _buyPerQuery(renter, perQuery, PRICE);
        _close(perQuery);
        vm.prank(renter);
        market.reclaimBalance(perQuery);
        assertEq(_balance(perQuery, renter), 0);
        assertEq(address(market).balance, PRICE * 2);
    }

    // ─── Fee recipient rejecting ETH ──────────────────────────────────────────

    function test_withdrawFees_RevertWhen_TransferFailed() public {
        RejectingReceiver rejecting = new RejectingReceiver(market);
        vm.prank(authority);
        market.setFeeRecipient(address(rejecting));
        _buyOneTime(renter, oneTime);
        _buySubscription(renter, subscription, 30 days);
        uint256 fees = _fees(oneTime) + _fees(subscription);
        bytes32[] memory ids = new bytes32[](2);
        ids[0] = oneTime;
        ids[1] = subscription;

        vm.expectRevert(
            abi.encodeWithSelector(IServiceMarketplace.TransferFailed.selector, address(rejecting), fees)
        );
        rejecting.withdrawFees(ids);
        assertEq(_fees(oneTime) + _fees(subscription), fees);

        // Creators are unaffected.
        uint256 escrow = _escrow(oneTime);
        vm.prank(creator);
        market.withdrawEarnings(oneTime, escrow);
        assertEq(creator.balance, escrow);

        // The authority points fees at a working recipient, which collects them all.
        address fresh = makeAddr("freshRecipient");
        vm.prank(authority);
        market.setFeeRecipient(fresh);
        vm.expectEmit(address(market));
        emit IServiceMarketplace.FeesWithdrawn(fresh, fees, ids);
        vm.prank(fresh);
        market.withdrawFees(ids);
        assertEq(fresh.balance, fees);
        assertEq(_fees(oneTime) + _fees(subscription), 0);
    }
}
