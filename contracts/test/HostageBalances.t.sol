// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {BaseTest} from "./Base.t.sol";
import {IServiceMarketplace} from "../src/interfaces/IServiceMarketplace.sol";

/// @notice Finding M-1, per-task balances held hostage: a creator who pauses or abandons a listing cannot keep
/// its renters' prepaid ETH. The renter asks for it back (`requestExit`); runs in flight are still debited
/// for `EXIT_DELAY`, then the renter reclaims what is left and nothing more is debited. Finding L-7: a debit or
/// purchase landing first cannot keep a creator from emptying and closing a listing (`withdrawAndClose`).
contract HostageBalancesTest is BaseTest {
    uint256 internal constant DELAY = 2 days;

    function _requestExit(address who, bytes32 listingId) internal {
        vm.prank(who);
        market.requestExit(listingId);
    }

    function _reclaim(address who, bytes32 listingId) internal returns (uint256 received) {
        uint256 before = who.balance;
        vm.prank(who);
        market.reclaimBalance(listingId);
        received = who.balance - before;
    }

    function _exitPending(address who, bytes32 listingId, uint256 at) internal pure returns (bytes memory) {
        return abi.encodeWithSelector(IServiceMarketplace.ExitPending.selector, listingId, who, at);
    }

    // ─── M-1 ──────────────────────────────────────────────────────────────────

    /// @dev The attack: the creator pauses, so the balance can be neither run nor topped up, and before the fix
    /// `reclaimBalance` refused it (`Unauthorized`) for as long as the creator liked.
    function test_finding_M1_CreatorPauses_RenterGetsTheUnspentBalanceBackAfterTheDelay() public {
        _buyPerQuery(renter, perQuery, PRICE * 10);
        _pauseListing(perQuery);
        vm.prank(renter);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.Unauthorized.selector, renter));
        market.reclaimBalance(perQuery);

        uint256 reclaimableAt = block.timestamp + DELAY;
        vm.expectEmit(address(market));
        emit IServiceMarketplace.ExitRequested(perQuery, renter, PRICE * 10, uint40(reclaimableAt));
        _requestExit(renter, perQuery);
        assertEq(market.exitReclaimableAt(perQuery, renter), reclaimableAt);

        // Runs in flight still settle during the delay: the creator is paid for work already done.
        _consume(perQuery, renter, 1);
        _consume(perQuery, renter, 2);
        vm.warp(reclaimableAt - 1);
        _consume(perQuery, renter, 3);
        vm.prank(renter);
        vm.expectRevert(_exitPending(renter, perQuery, reclaimableAt));
        market.reclaimBalance(perQuery);

        vm.warp(reclaimableAt);
        vm.expectEmit(address(market));
        emit IServiceMarketplace.BalanceReclaimed(perQuery, renter, PRICE * 7);
        assertEq(_reclaim(renter, perQuery), PRICE * 7, "the unspent balance came back");
        assertEq(_balance(perQuery, renter), 0);
        assertEq(market.exitReclaimableAt(perQuery, renter), 0, "the exit ended");
        assertEq(_escrow(perQuery) + _fees(perQuery), PRICE * 3, "the creator kept the three runs");
        assertEq(address(market).balance, PRICE * 3, "fee + share + unspent = paid");
    }

    /// @dev An abandoned listing stays active (key lost, webhook dead): nothing is ever debited, nothing
    /// revoked or closed. The exit does not depend on the creator at all.
    function test_finding_M1_CreatorAbandonsAnActiveListing_RenterGetsItAllBack() public {
        _buyPerQuery(renter, perQuery, PRICE * 4);
        _requestExit(renter, perQuery);
        vm.warp(block.timestamp + DELAY);
        assertEq(_reclaim(renter, perQuery), PRICE * 4);
    }

    /// @dev The operator may debit runs in flight until the exit comes due, and from then on nothing: what
    /// the renter reclaims cannot be raced away by a late debit, single or batched.
    function test_finding_M1_OperatorCannotDebitOnceTheExitIsDue() public {
        _buyPerQuery(renter, perQuery, PRICE * 5);
        _pauseListing(perQuery);
        _requestExit(renter, perQuery);
        uint256 reclaimableAt = block.timestamp + DELAY;
        vm.warp(reclaimableAt);

        vm.prank(operator);
        vm.expectRevert(_exitPending(renter, perQuery, reclaimableAt));
        market.consumeQuery(perQuery, renter, 1, PRICE, true);
        IServiceMarketplace.Debit[] memory debits = new IServiceMarketplace.Debit[](1);
        debits[0] = IServiceMarketplace.Debit(perQuery, renter, 2, PRICE, true);
        vm.expectEmit(address(market));
        emit IServiceMarketplace.QueryNotConsumed(
            perQuery, renter, 2, IServiceMarketplace.ExitPending.selector
        );
        vm.prank(authority);
        market.consumeQueries(debits);

        assertEq(_balance(perQuery, renter), PRICE * 5, "nothing was debited");
        assertFalse(market.isRunRecorded(1));
        assertEq(_reclaim(renter, perQuery), PRICE * 5);
    }

    /// @dev From the request on, the balance starts no run: only runs admitted before it are debited in the
    /// delay, so none is left unpaid when the renter reclaims.
    function test_finding_M1_ExitStartsNoRun() public {
        _buyPerQuery(renter, perQuery, PRICE * 5);
        _requestExit(renter, perQuery);
        uint256 reclaimableAt = block.timestamp + DELAY;

        IServiceMarketplace.AccessState memory state = market.getAccessState(perQuery, renter);
        assertEq(state.reclaimableAt, reclaimableAt);
        assertFalse(state.isValid);
        assertFalse(market.isCredentialValid(perQuery, renter));
        vm.expectRevert(_exitPending(renter, perQuery, reclaimableAt));
        market.requireAccess(perQuery, renter);
        // Asked twice, the exit keeps its time.
        vm.prank(renter);
        vm.expectRevert(_exitPending(renter, perQuery, reclaimableAt));
        market.requestExit(perQuery);
    }

    /// @dev A deposit ends the exit: the renter stays, runs again, and may exit again later.
    function test_finding_M1_TopUpEndsTheExit() public {
        _buyPerQuery(renter, perQuery, PRICE * 2);
        _requestExit(renter, perQuery);
        _topUp(renter, perQuery, PRICE);

        assertEq(market.exitReclaimableAt(perQuery, renter), 0);
        assertTrue(_valid(perQuery, renter));
        vm.warp(block.timestamp + DELAY);
        _consume(perQuery, renter, 1);
        vm.prank(renter);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.Unauthorized.selector, renter));
        market.reclaimBalance(perQuery);
        _requestExit(renter, perQuery);
        vm.warp(block.timestamp + DELAY);
        assertEq(_reclaim(renter, perQuery), PRICE * 2);
    }

    /// @dev After a reclaim by exit the credential is an empty balance, not a revocation: the renter may come
    /// back with a deposit once the listing is active again.
    function test_finding_M1_RenterMayReturnAfterTheExit() public {
        _buyPerQuery(renter, perQuery, PRICE * 2);
        _pauseListing(perQuery);
        _requestExit(renter, perQuery);
        vm.warp(block.timestamp + DELAY);
        _reclaim(renter, perQuery);

        vm.prank(creator);
        market.setListingActive(perQuery, true);
        _topUp(renter, perQuery, PRICE);
        assertTrue(_valid(perQuery, renter));
    }

    /// @dev Exits stay open whatever the protocol's state: a paused protocol holds no one's balance.
    function test_finding_M1_ExitWhileTheProtocolIsPaused() public {
        _buyPerQuery(renter, perQuery, PRICE * 3);
        _pauseProtocol();
        _requestExit(renter, perQuery);
        vm.warp(block.timestamp + DELAY);
        assertEq(_reclaim(renter, perQuery), PRICE * 3);
    }

    function test_requestExit_RevertWhen_CredentialNotFound() public {
        vm.prank(renter);
        vm.expectRevert(
            abi.encodeWithSelector(IServiceMarketplace.CredentialNotFound.selector, perQuery, renter)
        );
        market.requestExit(perQuery);
    }

    function test_requestExit_RevertWhen_CredentialRevoked() public {
        _buyPerQuery(renter, perQuery, PRICE);
        vm.prank(creator);
        market.revokePerQueryAccess(perQuery, renter);
        vm.prank(renter);
        vm.expectRevert(
            abi.encodeWithSelector(IServiceMarketplace.CredentialRevoked.selector, perQuery, renter)
        );
        market.requestExit(perQuery);
        // A revoked balance needs no exit: it is reclaimable at once.
        assertEq(_reclaim(renter, perQuery), PRICE);
    }

    function test_requestExit_RevertWhen_NothingToWithdraw() public {
        _buyPerQuery(renter, perQuery, PRICE);
        _consume(perQuery, renter, 1);
        vm.prank(renter);
        vm.expectRevert(IServiceMarketplace.NothingToWithdraw.selector);
        market.requestExit(perQuery);
    }

    /// @dev A revocation during the delay makes the balance reclaimable at once, and ends the exit.
    function test_requestExit_RevocationDuringTheDelay_ReclaimableAtOnce() public {
        _buyPerQuery(renter, perQuery, PRICE * 2);
        _requestExit(renter, perQuery);
        vm.prank(creator);
        market.revokePerQueryAccess(perQuery, renter);
        assertEq(_reclaim(renter, perQuery), PRICE * 2);
        assertEq(market.exitReclaimableAt(perQuery, renter), 0);
    }

    // ─── L-7 ──────────────────────────────────────────────────────────────────

    /// @dev The race: the creator pauses and empties the escrow, but a run in flight is debited before the
    /// close lands, so `closeListing` reverts `EscrowNotEmpty`, again and again while debits keep landing.
    /// `withdrawAndClose` empties and closes in one transaction, whatever landed first.
    function test_finding_L7_DebitLandingFirst_WithdrawAndCloseStillCloses() public {
        _buyPerQuery(renter, perQuery, PRICE * 5);
        _consume(perQuery, renter, 1);
        _pauseListing(perQuery);
        _withdrawAll(perQuery);

        _consume(perQuery, renter, 2); // lands first
        uint256 escrow = _escrow(perQuery);
        assertGt(escrow, 0);
        vm.prank(creator);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.EscrowNotEmpty.selector, escrow));
        market.closeListing(perQuery);

        uint256 before = creator.balance;
        vm.expectEmit(address(market));
        emit IServiceMarketplace.EarningsWithdrawn(perQuery, creator, escrow);
        vm.expectEmit(address(market));
        emit IServiceMarketplace.ListingStatusChanged(perQuery, IServiceMarketplace.ListingStatus.Closed);
        vm.prank(creator);
        market.withdrawAndClose(perQuery);

        assertEq(creator.balance - before, escrow, "the creator got the escrow");
        assertEq(_escrow(perQuery), 0);
        assertTrue(_status(perQuery) == IServiceMarketplace.ListingStatus.Closed);
        // A run still in flight is refused now, and the renter's unspent balance stays reclaimable.
        vm.prank(operator);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.ListingNotActive.selector, perQuery));
        market.consumeQuery(perQuery, renter, 3, PRICE, true);
        assertEq(_reclaim(renter, perQuery), PRICE * 3);
    }

    /// @dev The purchase race: a sale landing first fills the escrow and `closeListing` reverts. Only a paused
    /// listing may be emptied and closed at once, so no sale can land just before the close and lose its
    /// buyer the access it paid for.
    function test_finding_L7_PurchaseLandingFirst_PauseThenWithdrawAndClose() public {
        _buyOneTime(renter, oneTime); // lands first
        uint256 escrow = _escrow(oneTime);
        vm.prank(creator);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.EscrowNotEmpty.selector, escrow));
        market.closeListing(oneTime);
        vm.prank(creator);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.ListingNotPaused.selector, oneTime));
        market.withdrawAndClose(oneTime);

        _pauseListing(oneTime);
        vm.prank(secondRenter);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.ListingNotActive.selector, oneTime));
        market.purchaseOneTime{value: PRICE}(oneTime);
        vm.prank(creator);
        market.withdrawAndClose(oneTime);
        assertEq(creator.balance, escrow, "the creator got the sale's share");
        assertEq(_escrow(oneTime), 0);
        assertTrue(_status(oneTime) == IServiceMarketplace.ListingStatus.Closed);
    }

    function test_withdrawAndClose_EmptyEscrow_Closes() public {
        _pauseListing(subscription);
        vm.recordLogs();
        vm.prank(creator);
        market.withdrawAndClose(subscription);
        assertEq(vm.getRecordedLogs().length, 1, "only the close is emitted");
        assertTrue(_status(subscription) == IServiceMarketplace.ListingStatus.Closed);
    }

    function test_withdrawAndClose_RevertWhen_Unauthorized() public {
        _pauseListing(perQuery);
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.Unauthorized.selector, stranger));
        market.withdrawAndClose(perQuery);
    }

    function test_withdrawAndClose_RevertWhen_Closed() public {
        _close(perQuery);
        vm.prank(creator);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.ListingNotPaused.selector, perQuery));
        market.withdrawAndClose(perQuery);
    }
}
