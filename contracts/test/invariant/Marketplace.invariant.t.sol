// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {Test} from "forge-std/Test.sol";
import {ServiceMarketplace} from "../../src/ServiceMarketplace.sol";
import {Handler} from "./Handler.sol";
import {AccessRuleAssertions} from "../AccessRule.sol";

/// @notice Stateful properties of the marketplace under random sequences of valid calls.
contract MarketplaceInvariantTest is Test, AccessRuleAssertions {
    /// @dev Runs of the campaign after which each exercised operation must have happened. At the rates
    /// measured per run (about 3 debits, 3 revocations, 1.2 refused replays, 0.8 closes), missing one by
    /// chance over 32 runs has a probability below 1e-11.
    uint256 internal constant RUNS_BEFORE_EXERCISE_CHECK = 32;

    ServiceMarketplace internal market;
    Handler internal handler;
    address internal authority = makeAddr("authority");
    address internal operator = makeAddr("operator");
    address internal feeRecipient = makeAddr("feeRecipient");

    function setUp() public {
        vm.warp(1_700_000_000);
        market = new ServiceMarketplace(authority, operator, feeRecipient, makeAddr("receiptsSigner"));
        handler = new Handler(market, authority, operator, feeRecipient);
        // One listing of each model, so every sequence can trade from its first call.
        handler.createListing(0, 0, 0.01 ether);
        handler.createListing(1, 1, 0.02 ether);
        handler.createListing(2, 2, 0.001 ether);
        // And some credentials on them, so runs, renewals and revocations are possible from the start.
        handler.purchaseOneTime(0, 0);
        handler.purchaseSubscription(1, 1, 0);
        handler.purchasePerQuery(2, 2, 0.01 ether);
        handler.purchasePerQuery(2, 3, 0.005 ether);

        bytes4[] memory selectors = new bytes4[](32);
        selectors[0] = Handler.createListing.selector;
        selectors[1] = Handler.updatePrice.selector;
        selectors[2] = Handler.setListingActive.selector;
        selectors[3] = Handler.closeListing.selector;
        selectors[4] = Handler.revokeAccess.selector;
        selectors[5] = Handler.revokePerQueryAccess.selector;
        selectors[6] = Handler.withdrawEarnings.selector;
        selectors[7] = Handler.purchaseOneTime.selector;
        selectors[8] = Handler.purchaseSubscription.selector;
        selectors[9] = Handler.renewSubscription.selector;
        selectors[10] = Handler.purchasePerQuery.selector;
        selectors[11] = Handler.topUpBalance.selector;
        selectors[12] = Handler.reclaimBalance.selector;
        selectors[13] = Handler.consumeQuery.selector;
        selectors[14] = Handler.anchor.selector;
        selectors[15] = Handler.withdrawFees.selector;
        selectors[16] = Handler.setFeeBasisPoints.selector;
        selectors[17] = Handler.setPaused.selector;
        selectors[18] = Handler.warp.selector;
        // Weight the hot paths: sales and runs happen more often than administration.
        selectors[19] = Handler.consumeQuery.selector;
        selectors[20] = Handler.purchasePerQuery.selector;
        selectors[21] = Handler.consumeQuery.selector;
        selectors[22] = Handler.topUpBalance.selector;
        selectors[23] = Handler.purchaseSubscription.selector;
        selectors[24] = Handler.raisePriceToBalance.selector;
        selectors[25] = Handler.rotateOperator.selector;
        selectors[26] = Handler.consumeQueries.selector;
        selectors[27] = Handler.consumeQueries.selector;
        selectors[28] = Handler.requestExit.selector;
        selectors[29] = Handler.debitDueExit.selector;
        selectors[30] = Handler.withdrawAndClose.selector;
        selectors[31] = Handler.anchor.selector;
        targetSelector(FuzzSelector({addr: address(handler), selectors: selectors}));
        targetContract(address(handler));
    }

    /// @notice Every property below, after every call of one campaign: each is checked in every state the
    /// campaign reaches, not only in the states of a campaign of its own.
    function invariant_MarketplaceProperties() public view {
        _checkBalanceEqualsEscrowFeesAndBalances();
        _checkFeesPlusSharesEqualPaid();
        _checkConsumedNeverExceedsPaid();
        _checkRunIdNeverDebitsTwice();
        _checkNoValidCredentialAfterRevocationOrClose();
        _checkDebitNeverExceedsAgreedPrice();
        _checkRotatedOutOperatorIsRefused();
        _checkBatchDebitsSettleAsSingleDebits();
        _checkDebitCarriesTheRunsOutcome();
        _checkExitsHoldNoBalanceHostage();
        _checkRootAnchoredOnce();
        _checkAnchoredCountsAddUp();
    }

    /// @notice (a) The contract holds exactly every listing's escrow and fees plus every per-task balance.
    function _checkBalanceEqualsEscrowFeesAndBalances() internal view {
        uint256 owed;
        uint256 n = handler.listingCount();
        uint256 r = handler.renterCount();
        for (uint256 i; i < n; ++i) {
            bytes32 id = handler.listingIds(i);
            (,, uint112 escrow, uint112 fees,,) = market.listings(id);
            owed += uint256(escrow) + fees;
            for (uint256 j; j < r; ++j) {
                (uint96 balance,,,,) = market.perQueryBalances(id, handler.renters(j));
                owed += balance;
            }
        }
        assertEq(address(market).balance, owed, "balance != escrow + fees + per-task balances");

        uint256 paidIn = handler.ghost_paidDirect() + handler.ghost_deposited();
        uint256 paidOut =
            handler.ghost_earningsWithdrawn() + handler.ghost_feesWithdrawn() + handler.ghost_reclaimed();
        assertEq(address(market).balance, paidIn - paidOut, "balance != ghost in - ghost out");
    }

    /// @notice (b) Every paid amount splits exactly into fee and creator share; fees follow the rate.
    function _checkFeesPlusSharesEqualPaid() internal view {
        uint256 split = handler.ghost_paidDirect() + handler.ghost_consumed();
        assertEq(handler.ghost_fees() + handler.ghost_creatorShares(), split, "fee + share != paid");
        assertEq(handler.ghost_fees(), handler.ghost_expectedFees(), "fee != amount * bps / 10000");
        assertLe(handler.ghost_fees() * 10_000, split * 1000, "fees above the cap");

        uint256 escrow;
        uint256 fees;
        uint256 n = handler.listingCount();
        for (uint256 i; i < n; ++i) {
            (,, uint112 e, uint112 f,,) = market.listings(handler.listingIds(i));
            escrow += e;
            fees += f;
        }
        assertEq(escrow, handler.ghost_creatorShares() - handler.ghost_earningsWithdrawn(), "escrow drift");
        assertEq(fees, handler.ghost_fees() - handler.ghost_feesWithdrawn(), "fees drift");
    }

    /// @notice (c) Runs debited from a per-task credential never exceed what was deposited on it.
    function _checkConsumedNeverExceedsPaid() internal view {
        uint256 n = handler.listingCount();
        uint256 r = handler.renterCount();
        for (uint256 i; i < n; ++i) {
            bytes32 id = handler.listingIds(i);
            for (uint256 j; j < r; ++j) {
                address buyer = handler.renters(j);
                uint256 deposited = handler.ghost_depositedOf(id, buyer);
                uint256 debited = handler.ghost_debitedOf(id, buyer);
                (uint96 balance,,,,) = market.perQueryBalances(id, buyer);
                assertLe(debited, deposited, "debited more than deposited");
                assertEq(deposited, debited + handler.ghost_reclaimedOf(id, buyer) + balance, "balance drift");
            }
        }
        assertLe(handler.ghost_consumed(), handler.ghost_deposited());
    }

    /// @notice (d) A run id settles at most once, across `consumeQuery`, `consumeQueries` and `settle`;
    /// every replay reverted RunAlreadyRecorded (or was skipped for it in a batch) and debited nothing.
    function _checkRunIdNeverDebitsTwice() internal view {
        uint256 n = handler.usedRunIdCount();
        for (uint256 i; i < n; ++i) {
            uint256 runId = handler.usedRunIds(i);
            assertLe(handler.ghost_consumedEvents(runId), 1, "run id debited twice");
            assertTrue(market.isRunRecorded(runId), "used run id not recorded");
        }
        assertFalse(market.isRunRecorded(handler.nextRunId()), "unused run id recorded");
        assertEq(handler.ghost_replaysReverted(), handler.ghost_replaysAttempted(), "replay not rejected");
        assertEq(handler.ghost_replayStateChanges(), 0, "replay changed balances");
    }

    /// @notice (e) No credential is valid after its revocation or its listing's close.
    function _checkNoValidCredentialAfterRevocationOrClose() internal view {
        Handler.Pair[] memory revoked = handler.revoked();
        for (uint256 i; i < revoked.length; ++i) {
            assertFalse(market.isCredentialValid(revoked[i].listingId, revoked[i].buyer), "revoked but valid");
        }
        bytes32[] memory closed = handler.closed();
        uint256 r = handler.renterCount();
        for (uint256 i; i < closed.length; ++i) {
            for (uint256 j; j < r; ++j) {
                assertFalse(market.isCredentialValid(closed[i], handler.renters(j)), "closed but valid");
            }
        }
    }

    /// @notice (f) Finding "per-task price lock": no run ever debits more than the price its renter last
    /// agreed to by depositing, nor more than the price the run was admitted at (`maxPrice`), and each debits
    /// exactly the lowest of those and the listing's current price.
    function _checkDebitNeverExceedsAgreedPrice() internal view {
        assertEq(handler.ghost_debitsAboveAgreedPrice(), 0, "debit above the agreed price");
        assertEq(handler.ghost_debitsAboveMaxPrice(), 0, "debit above the admission price");
        assertEq(handler.ghost_debitsOffPrice(), 0, "debit not min(agreed, current, admission price)");
    }

    /// @notice (g) Finding "hot key split": an operator rotated out is refused from the very next call, while
    /// its successor debits and anchors runs (the handler's calls never revert).
    function _checkRotatedOutOperatorIsRefused() internal view {
        assertEq(handler.ghost_staleOperatorAccepted(), 0, "a rotated-out operator was accepted");
        assertEq(market.operator(), handler.operator(), "operator drift");
    }

    /// @notice (h) A batch debits each run exactly as `consumeQuery` would: the model's price (never above the
    /// agreed one, by (f)) or a skip for the model's reason, its run id recorded iff debited; a paused
    /// protocol refuses the whole batch.
    function _checkBatchDebitsSettleAsSingleDebits() internal view {
        assertEq(handler.ghost_batchMismatches(), 0, "a batch debit differed from consumeQuery");
    }

    /// @notice (k) Every `QueryConsumed` carries the outcome its run was debited with, whether by
    /// `consumeQuery` or in a batch: the indexer counts a charged run's failure from it.
    function _checkDebitCarriesTheRunsOutcome() internal view {
        assertEq(handler.ghost_outcomeMismatches(), 0, "a debit's event carried another outcome");
    }

    /// @notice (l) Finding M-1: a balance being exited starts no run, and once its exit is due no debit lands
    /// on it, single or batched (the handler's own debits stop there too, and never revert); its renter
    /// reclaims it (`reclaimBalance` in the handler), and (a) to (c) hold through every exit.
    function _checkExitsHoldNoBalanceHostage() internal view {
        assertEq(handler.ghost_debitsAfterExitDue(), 0, "a debit landed on a balance whose exit was due");
        uint256 n = handler.listingCount();
        uint256 r = handler.renterCount();
        for (uint256 i; i < n; ++i) {
            bytes32 id = handler.listingIds(i);
            for (uint256 j; j < r; ++j) {
                address buyer = handler.renters(j);
                if (market.exitReclaimableAt(id, buyer) == 0) continue;
                assertFalse(market.isCredentialValid(id, buyer), "a balance being exited is valid");
            }
        }
    }

    /// @notice (m) A root is anchored once: `anchoredAt` keeps the block of its first anchor, and it has
    /// exactly one `RunsAnchored`, however often it is sent again; nothing else emits one.
    function _checkRootAnchoredOnce() internal view {
        uint256 n = handler.anchoredRootCount();
        for (uint256 i; i < n; ++i) {
            bytes32 root = handler.anchoredRoots(i);
            assertEq(market.anchoredAt(root), handler.ghost_anchorBlock(root), "anchor block moved");
            assertEq(handler.ghost_anchorEvents(root), 1, "a root anchored more than once");
        }
        assertEq(handler.ghost_anchorEventsTotal(), n, "RunsAnchored without a new root");
        assertEq(market.anchoredAt(bytes32(0)), 0, "the zero root anchored");
    }

    /// @notice (n) Anchored counts add up: the runs and failed runs of every `RunsAnchored` are those of the
    /// calls that anchored a new root, and no emitted count has more failed runs than runs.
    function _checkAnchoredCountsAddUp() internal view {
        assertEq(handler.ghost_emittedRuns(), handler.ghost_anchoredRuns(), "anchored runs drift");
        assertEq(handler.ghost_emittedFailed(), handler.ghost_anchoredFailed(), "anchored failed runs drift");
        assertEq(handler.ghost_emittedFailedAboveRuns(), 0, "a count with more failed runs than runs");
    }

    /// @notice (j) `requireAccess` refuses every credential with the access rule's error (the API's, over
    /// `getAccessState`), and lets run exactly the valid ones on active listings. Checked in the state each run
    /// ends in (from `afterInvariant`): after every call it would triple the suite's time.
    function _checkRequireAccessEverywhere() internal view {
        uint256 n = handler.listingCount();
        uint256 r = handler.renterCount();
        for (uint256 i; i < n; ++i) {
            for (uint256 j; j < r; ++j) {
                _assertRequireAccessFollowsTheRule(market, handler.listingIds(i), handler.renters(j));
            }
        }
        _assertRequireAccessFollowsTheRule(market, keccak256("no listing"), handler.renters(0));
    }

    /// @notice (i) The runs really debit fresh run ids, refuse replayed ones, revoke credentials, close
    /// listings, debit balances whose price was raised above what their renter agreed to, debit runs whose
    /// admission price was below the price now, rotate the operator, debit and skip in batches (by
    /// `consumeQueries` and `settle`), anchor roots and send them again, debit failed runs, top up, reclaim
    /// and renew, and withdraw earnings and fees, so (a) to (h) and (k) to (n) are never checked against
    /// nothing. A run of 50 calls often closes nothing, so the totals are kept over the
    /// campaign. They cannot live in the handler's storage: forge restores the state after `setUp` before
    /// every run, and only the process environment outlives a run. The suite is one campaign (one
    /// `invariant_` function), so one thread alone reads and writes them.
    function afterInvariant() public {
        _checkRequireAccessEverywhere();
        uint256 runs = _addToCampaignTotal("RUNS", 1);
        (
            uint256 debits,
            uint256 refusedReplays,
            uint256 revocations,
            uint256 closes,
            uint256 debitsAfterRaise
        ) = handler.exercised();
        _exercised(runs, "DEBITS", debits, "no run id was ever debited");
        _exercised(runs, "REFUSED_REPLAYS", refusedReplays, "no replayed run id was ever refused");
        _exercised(runs, "REVOCATIONS", revocations, "no credential was ever revoked");
        _exercised(runs, "CLOSES", closes, "no listing was ever closed");
        _exercised(
            runs, "DEBITS_AFTER_RAISE", debitsAfterRaise, "no balance was ever debited after a price raise"
        );
        _exercised(
            runs, "OPERATOR_ROTATIONS", handler.calls("rotateOperator"), "the operator was never rotated"
        );
        _exercised(runs, "BATCH_DEBITS", handler.ghost_batchDebits(), "no batch ever debited");
        _exercised(runs, "BATCH_SKIPS", handler.ghost_batchSkips(), "no batch ever skipped a debit");
        _exercised(
            runs, "SETTLE_BATCHES", handler.calls("consumeQueries.settle"), "settle never debited a batch"
        );
        _exercised(runs, "ANCHORS", handler.anchoredRootCount(), "no root was ever anchored");
        _exercised(runs, "ANCHOR_RESENDS", handler.ghost_anchorResends(), "no anchored root was sent again");
        _exercised(
            runs,
            "DEBITS_CAPPED",
            handler.ghost_debitsCappedByMaxPrice(),
            "no debit was ever capped by its admission price"
        );
        _exercised(
            runs, "FAILED_RUN_DEBITS", handler.ghost_failedRunDebits(), "no failed run was ever debited"
        );
        _exercised(runs, "TOP_UPS", handler.calls("topUpBalance"), "no balance was ever topped up");
        _exercised(runs, "RECLAIMS", handler.calls("reclaimBalance"), "no balance was ever reclaimed");
        _exercised(runs, "EXIT_RECLAIMS", handler.ghost_exitReclaims(), "no exit was ever reclaimed");
        _exercised(
            runs, "DEBITS_DURING_EXIT", handler.ghost_debitsDuringExit(), "no run was debited during an exit"
        );
        _exercised(runs, "DUE_EXIT_DEBITS", handler.calls("debitDueExit"), "no debit was tried on a due exit");
        _exercised(
            runs, "WITHDRAW_AND_CLOSE", handler.calls("withdrawAndClose"), "no listing was emptied and closed"
        );
        _exercised(runs, "RENEWALS", handler.calls("renewSubscription"), "no subscription was ever renewed");
        _exercised(
            runs,
            "EARNINGS_WITHDRAWALS",
            handler.calls("withdrawEarnings"),
            "no creator ever withdrew earnings"
        );
        _exercised(
            runs, "FEE_WITHDRAWALS", handler.calls("withdrawFees"), "the fee recipient never withdrew fees"
        );
    }

    /// @dev Adds this run's `amount` to the campaign's total `name`; from RUNS_BEFORE_EXERCISE_CHECK runs on,
    /// fails with `never` while that total is 0.
    function _exercised(uint256 runs, string memory name, uint256 amount, string memory never) internal {
        uint256 total = _addToCampaignTotal(name, amount);
        if (runs >= RUNS_BEFORE_EXERCISE_CHECK) assertGt(total, 0, never);
    }

    function _addToCampaignTotal(string memory name, uint256 amount) internal returns (uint256 total) {
        string memory key = string.concat("MARKETPLACE_INVARIANT_", name);
        total = vm.envOr(key, uint256(0)) + amount;
        vm.setEnv(key, vm.toString(total));
    }
}
