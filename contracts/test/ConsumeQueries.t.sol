// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {Vm} from "forge-std/Vm.sol";
import {IServiceMarketplace} from "../src/interfaces/IServiceMarketplace.sol";
import {BaseTest} from "./Base.t.sol";

/// @notice `consumeQueries`: each debit of a batch settles exactly as `consumeQuery` would, and a debit
/// `consumeQuery` would refuse is skipped with its reason instead of failing the others.
contract ConsumeQueriesTest is BaseTest {
    IServiceMarketplace.Debit[] internal batch;

    /// @dev A run admitted now: at most the price the chain gives its credential's next run.
    function _add(bytes32 listingId, address buyer, uint256 runId) internal {
        _add(listingId, buyer, runId, _nextDebit(listingId, buyer));
    }

    function _add(bytes32 listingId, address buyer, uint256 runId, uint256 maxPrice) internal {
        batch.push(IServiceMarketplace.Debit(listingId, buyer, runId, maxPrice, true));
    }

    /// @dev A run admitted now that failed after its output reached the renter: charged all the same.
    function _addFailed(bytes32 listingId, address buyer, uint256 runId) internal {
        batch.push(IServiceMarketplace.Debit(listingId, buyer, runId, _nextDebit(listingId, buyer), false));
    }

    function _send() internal {
        vm.prank(operator);
        market.consumeQueries(batch);
        delete batch;
    }

    function _expectSkip(bytes32 listingId, address buyer, uint256 runId, bytes4 reason) internal {
        vm.expectEmit(address(market));
        emit IServiceMarketplace.QueryNotConsumed(listingId, buyer, runId, reason);
    }

    function _expectDebit(bytes32 listingId, address buyer, uint256 runId, uint256 price, uint256 balance)
        internal
    {
        _expectDebit(listingId, buyer, runId, price, balance, true);
    }

    function _expectDebit(
        bytes32 listingId,
        address buyer,
        uint256 runId,
        uint256 price,
        uint256 balance,
        bool succeeded
    ) internal {
        vm.expectEmit(address(market));
        emit IServiceMarketplace.QueryConsumed(
            listingId, buyer, runId, price, _fee(price), balance, succeeded
        );
    }

    // ─── Debits ───────────────────────────────────────────────────────────────

    function test_consumeQueries_DebitsEachSplitsAndEmits() public {
        _buyPerQuery(renter, perQuery, PRICE * 3);
        _buyPerQuery(secondRenter, perQuery, PRICE * 2);
        _add(perQuery, renter, 1);
        _add(perQuery, secondRenter, 2);
        _add(perQuery, renter, 3);

        _expectDebit(perQuery, renter, 1, PRICE, PRICE * 2);
        _expectDebit(perQuery, secondRenter, 2, PRICE, PRICE);
        _expectDebit(perQuery, renter, 3, PRICE, PRICE);
        _send();

        assertEq(_balance(perQuery, renter), PRICE);
        assertEq(_balance(perQuery, secondRenter), PRICE);
        assertEq(_fees(perQuery), _fee(PRICE) * 3);
        assertEq(_escrow(perQuery) + _fees(perQuery), PRICE * 3);
        for (uint256 runId = 1; runId <= 3; ++runId) {
            assertTrue(market.isRunRecorded(runId));
        }
        assertEq(address(market).balance, PRICE * 5);
    }

    function test_consumeQueries_EmitsEachRunsOutcome() public {
        _buyPerQuery(renter, perQuery, PRICE * 3);
        _buyPerQuery(secondRenter, perQuery, PRICE * 2);
        _add(perQuery, renter, 1);
        _addFailed(perQuery, secondRenter, 2);
        _addFailed(perQuery, renter, 3);

        _expectDebit(perQuery, renter, 1, PRICE, PRICE * 2, true);
        _expectDebit(perQuery, secondRenter, 2, PRICE, PRICE, false);
        _expectDebit(perQuery, renter, 3, PRICE, PRICE, false);
        _send();

        // The outcome changes nothing of the charge: each run cost its price.
        assertEq(_balance(perQuery, renter), PRICE);
        assertEq(_balance(perQuery, secondRenter), PRICE);
        assertEq(_escrow(perQuery) + _fees(perQuery), PRICE * 3);
    }

    function test_consumeQueries_ChargesTheLowerOfAgreedAndCurrentPrice() public {
        _buyPerQuery(renter, perQuery, PRICE * 10);
        vm.prank(creator);
        market.updateListing(perQuery, PRICE * 5, NEW_URI);
        _add(perQuery, renter, 1);
        _expectDebit(perQuery, renter, 1, PRICE, PRICE * 9);
        _send();

        vm.prank(creator);
        market.updateListing(perQuery, PRICE / 2, NEW_URI);
        _add(perQuery, renter, 2);
        _expectDebit(perQuery, renter, 2, PRICE / 2, PRICE * 9 - PRICE / 2);
        _send();
    }

    /// @dev Each debit carries its run's admission price: a raise since reaches none of them, a cut since
    /// reaches each, and a batch mixes runs admitted at different prices.
    function test_consumeQueries_ChargesEachRunAtMostItsAdmissionPrice() public {
        _buyPerQuery(renter, perQuery, PRICE * 10);
        _add(perQuery, renter, 1); // admitted at PRICE
        vm.prank(creator);
        market.updateListing(perQuery, PRICE / 2, NEW_URI);
        _add(perQuery, renter, 2); // admitted at PRICE / 2
        vm.prank(creator);
        market.updateListing(perQuery, PRICE / 4, NEW_URI);
        _add(perQuery, renter, 3); // admitted at PRICE / 4
        vm.prank(creator);
        market.updateListing(perQuery, PRICE, NEW_URI);

        _expectDebit(perQuery, renter, 1, PRICE, PRICE * 9);
        _expectDebit(perQuery, renter, 2, PRICE / 2, PRICE * 9 - PRICE / 2);
        _expectDebit(perQuery, renter, 3, PRICE / 4, PRICE * 9 - PRICE / 2 - PRICE / 4);
        _send();

        // Admitted at PRICE, debited after a cut: the cut applies.
        _add(perQuery, renter, 4);
        vm.prank(creator);
        market.updateListing(perQuery, PRICE / 8, NEW_URI);
        _expectDebit(perQuery, renter, 4, PRICE / 8, PRICE * 9 - PRICE / 2 - PRICE / 4 - PRICE / 8);
        _send();
    }

    /// @dev The admission price also decides whether the balance covers the run: a run admitted on the last
    /// PRICE / 2 of a balance is debited after a raise, though the agreed price is above what is left.
    function test_consumeQueries_BalanceCoveringTheAdmissionPriceIsDebited() public {
        _buyPerQuery(renter, perQuery, PRICE / 2 * 3);
        vm.prank(creator);
        market.updateListing(perQuery, PRICE / 2, NEW_URI);
        _consume(perQuery, renter, 1);
        _consume(perQuery, renter, 2);
        _add(perQuery, renter, 3); // admitted at PRICE / 2, all that is left
        vm.prank(creator);
        market.updateListing(perQuery, PRICE * 2, NEW_URI);

        _expectDebit(perQuery, renter, 3, PRICE / 2, 0);
        _send();
    }

    function test_consumeQueries_WorksWhileListingPaused() public {
        _buyPerQuery(renter, perQuery, PRICE * 2);
        _pauseListing(perQuery);
        _add(perQuery, renter, 1);
        _send();
        assertEq(_balance(perQuery, renter), PRICE);
    }

    function test_consumeQueries_ByTheAuthority() public {
        _buyPerQuery(renter, perQuery, PRICE * 2);
        _add(perQuery, renter, 1);
        vm.prank(authority);
        market.consumeQueries(batch);
        assertEq(_balance(perQuery, renter), PRICE);
    }

    function test_consumeQueries_EmptyBatch() public {
        vm.recordLogs();
        _send();
        assertEq(vm.getRecordedLogs().length, 0);
    }

    // ─── Skips ────────────────────────────────────────────────────────────────

    function test_consumeQueries_SkipsRunAlreadyRecorded_ByConsumeQuery() public {
        _buyPerQuery(renter, perQuery, PRICE * 5);
        _consume(perQuery, renter, 9);
        _add(perQuery, renter, 9);
        _add(perQuery, renter, 10);

        _expectSkip(perQuery, renter, 9, IServiceMarketplace.RunAlreadyRecorded.selector);
        _expectDebit(perQuery, renter, 10, PRICE, PRICE * 3);
        _send();
        assertEq(_balance(perQuery, renter), PRICE * 3);
    }

    function test_consumeQueries_SkipsARunIdRepeatedInTheBatch() public {
        _buyPerQuery(renter, perQuery, PRICE * 5);
        _buyPerQuery(secondRenter, perQuery, PRICE * 5);
        _add(perQuery, renter, 7);
        _add(perQuery, secondRenter, 7);

        _expectDebit(perQuery, renter, 7, PRICE, PRICE * 4);
        _expectSkip(perQuery, secondRenter, 7, IServiceMarketplace.RunAlreadyRecorded.selector);
        _send();
        assertEq(_balance(perQuery, secondRenter), PRICE * 5);
    }

    function test_consumeQueries_SkipsInsufficientBalance() public {
        _buyPerQuery(renter, perQuery, PRICE * 2 - 1);
        _add(perQuery, renter, 1);
        _add(perQuery, renter, 2);

        _expectDebit(perQuery, renter, 1, PRICE, PRICE - 1);
        _expectSkip(perQuery, renter, 2, IServiceMarketplace.InsufficientBalance.selector);
        _send();
        assertFalse(market.isRunRecorded(2));
    }

    function test_consumeQueries_SkipsCredentialRevoked() public {
        _buyPerQuery(renter, perQuery, PRICE * 2);
        _buyPerQuery(secondRenter, perQuery, PRICE * 2);
        vm.prank(creator);
        market.revokePerQueryAccess(perQuery, renter);
        _add(perQuery, renter, 1);
        _add(perQuery, secondRenter, 2);

        _expectSkip(perQuery, renter, 1, IServiceMarketplace.CredentialRevoked.selector);
        _expectDebit(perQuery, secondRenter, 2, PRICE, PRICE);
        _send();
        assertEq(_balance(perQuery, renter), PRICE * 2);
        assertFalse(market.isRunRecorded(1));
    }

    function test_consumeQueries_SkipsClosedListing() public {
        _buyPerQuery(renter, perQuery, PRICE * 2);
        _close(perQuery);
        _add(perQuery, renter, 1);
        _expectSkip(perQuery, renter, 1, IServiceMarketplace.ListingNotActive.selector);
        _send();
        assertEq(_balance(perQuery, renter), PRICE * 2);
    }

    function test_consumeQueries_SkipsListingNotFound() public {
        _add(UNKNOWN, renter, 1);
        _expectSkip(UNKNOWN, renter, 1, IServiceMarketplace.ListingNotFound.selector);
        _send();
        assertFalse(market.isRunRecorded(1));
    }

    function test_consumeQueries_SkipsOtherRentalModels() public {
        _buyOneTime(renter, oneTime);
        _add(oneTime, renter, 1);
        _expectSkip(oneTime, renter, 1, IServiceMarketplace.InvalidAccessType.selector);
        _send();
    }

    function test_consumeQueries_SkipsCredentialNotFound() public {
        _add(perQuery, stranger, 1);
        _expectSkip(perQuery, stranger, 1, IServiceMarketplace.CredentialNotFound.selector);
        _send();
    }

    /// @dev A skipped run id is not settled: once the renter tops up, the same run debits.
    function test_consumeQueries_SkippedRunIdStaysDebitable() public {
        _buyPerQuery(renter, perQuery, PRICE);
        _add(perQuery, renter, 1);
        _add(perQuery, renter, 2);
        _send();
        _topUp(renter, perQuery, PRICE);
        _add(perQuery, renter, 2);
        _expectDebit(perQuery, renter, 2, PRICE, 0);
        _send();
    }

    function test_consumeQueries_EverySkipChangesNothing() public {
        _buyPerQuery(renter, perQuery, PRICE + 1);
        _consume(perQuery, renter, 5);
        uint256 balance = _balance(perQuery, renter);
        uint256 escrow = _escrow(perQuery);
        uint256 fees = _fees(perQuery);
        _add(perQuery, renter, 5);
        _add(perQuery, renter, 6);
        _add(UNKNOWN, renter, 7);
        _add(oneTime, renter, 8);
        _add(perQuery, stranger, 9);

        vm.recordLogs();
        _send();

        Vm.Log[] memory logs = vm.getRecordedLogs();
        assertEq(logs.length, 5);
        for (uint256 i; i < logs.length; ++i) {
            assertEq(logs[i].topics[0], IServiceMarketplace.QueryNotConsumed.selector);
        }
        assertEq(_balance(perQuery, renter), balance);
        assertEq(_escrow(perQuery), escrow);
        assertEq(_fees(perQuery), fees);
        for (uint256 runId = 6; runId <= 9; ++runId) {
            assertFalse(market.isRunRecorded(runId));
        }
    }

    // ─── Reverts ──────────────────────────────────────────────────────────────

    function test_consumeQueries_RevertWhen_ProtocolPaused() public {
        _buyPerQuery(renter, perQuery, PRICE * 2);
        _add(perQuery, renter, 1);
        _pauseProtocol();
        vm.expectRevert(_err(IServiceMarketplace.ProtocolPaused.selector));
        vm.prank(operator);
        market.consumeQueries(batch);
        assertFalse(market.isRunRecorded(1));
    }

    function test_consumeQueries_RevertWhen_Unauthorized() public {
        _buyPerQuery(renter, perQuery, PRICE * 2);
        _add(perQuery, renter, 1);
        address[3] memory strangers = [creator, renter, feeRecipient];
        for (uint256 i; i < strangers.length; ++i) {
            vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.Unauthorized.selector, strangers[i]));
            vm.prank(strangers[i]);
            market.consumeQueries(batch);
        }
    }

    function test_consumeQueries_RevertWhen_Unauthorized_RotatedOutOperator() public {
        _buyPerQuery(renter, perQuery, PRICE * 2);
        _add(perQuery, renter, 1);
        vm.prank(authority);
        market.setOperator(stranger);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.Unauthorized.selector, operator));
        vm.prank(operator);
        market.consumeQueries(batch);
    }
}
