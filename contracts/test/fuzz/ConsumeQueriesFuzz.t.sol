// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {Vm} from "forge-std/Vm.sol";
import {IServiceMarketplace} from "../../src/interfaces/IServiceMarketplace.sol";
import {BaseTest} from "../Base.t.sol";

/// @notice A `consumeQueries` batch is the same as its debits sent one by one with `consumeQuery`: the same
/// runs debit at the same prices, the others are skipped for the reason `consumeQuery` reverts with, and
/// the contract ends in the same state.
contract ConsumeQueriesFuzzTest is BaseTest {
    uint256 internal constant MAX_BATCH = 12;

    /// @dev What one debit did: the price it charged, or the selector of the error that refused it.
    struct Outcome {
        bool debited;
        uint256 price;
        bytes4 refusal;
    }

    bytes32 internal closedListing;
    bytes32[4] internal listingChoices;
    address[3] internal buyerChoices;

    function setUp() public override {
        super.setUp();
        closedListing = _create(otherCreator, bytes32(uint256(7)), PER_QUERY, PRICE);
        listingChoices = [perQuery, closedListing, oneTime, UNKNOWN];
        buyerChoices = [renter, secondRenter, stranger];
    }

    function testFuzz_consumeQueries_SameAsOneByOne(
        uint256[MAX_BATCH] memory picks,
        uint256 size,
        uint256 renterRuns,
        uint256 secondRenterRuns,
        uint256 newPrice,
        bool revokeSecondRenter
    ) public {
        _buyPerQuery(renter, perQuery, PRICE * bound(renterRuns, 1, 6) + renterRuns % PRICE);
        _buyPerQuery(secondRenter, perQuery, PRICE * bound(secondRenterRuns, 1, 6));
        _buyPerQuery(renter, closedListing, PRICE);
        _close(closedListing);
        _buyOneTime(renter, oneTime);
        vm.prank(creator);
        market.updateListing(perQuery, uint96(bound(newPrice, MIN_PRICE, PRICE * 2)), NEW_URI);
        if (revokeSecondRenter) {
            vm.prank(creator);
            market.revokePerQueryAccess(perQuery, secondRenter);
        }
        IServiceMarketplace.Debit[] memory debits = _debits(picks, bound(size, 1, MAX_BATCH));

        uint256 before = vm.snapshotState();
        Outcome[] memory oneByOne = _sendOneByOne(debits);
        bytes32 stateOneByOne = _state(debits);
        vm.revertToState(before);
        Outcome[] memory batched = _sendBatch(debits);

        for (uint256 i; i < debits.length; ++i) {
            assertEq(batched[i].debited, oneByOne[i].debited, "debited");
            assertEq(batched[i].price, oneByOne[i].price, "price");
            assertEq(batched[i].refusal, oneByOne[i].refusal, "reason");
        }
        assertEq(_state(debits), stateOneByOne, "state");
        assertEq(address(market).balance, _owed(), "solvency");
    }

    /// @dev Each pick chooses a listing, a buyer and a run id among few, so batches repeat run ids, the price
    /// the run was admitted at, below, at or above what the credential's next run costs, and its outcome.
    function _debits(uint256[MAX_BATCH] memory picks, uint256 size)
        internal
        view
        returns (IServiceMarketplace.Debit[] memory debits)
    {
        debits = new IServiceMarketplace.Debit[](size);
        for (uint256 i; i < size; ++i) {
            uint256 pick = picks[i];
            // Mostly the open per-task listing, so most debits have a chance to settle.
            bytes32 listingId = pick % 8 < 5 ? perQuery : listingChoices[(pick >> 3) % 4];
            debits[i] = IServiceMarketplace.Debit(
                listingId,
                buyerChoices[(pick >> 8) % 3],
                (pick >> 16) % 16,
                (pick >> 24) % (PRICE * 3),
                (pick >> 128) & 1 == 0
            );
        }
    }

    function _sendOneByOne(IServiceMarketplace.Debit[] memory debits)
        internal
        returns (Outcome[] memory outcomes)
    {
        outcomes = new Outcome[](debits.length);
        for (uint256 i; i < debits.length; ++i) {
            IServiceMarketplace.Debit memory debit = debits[i];
            uint256 balanceBefore = _balance(debit.listingId, debit.buyer);
            vm.prank(operator);
            try market.consumeQuery(
                debit.listingId, debit.buyer, debit.runId, debit.maxPrice, debit.succeeded
            ) {
                outcomes[i] = Outcome(true, balanceBefore - _balance(debit.listingId, debit.buyer), 0);
            } catch (bytes memory reason) {
                outcomes[i] = Outcome(false, 0, bytes4(reason));
            }
        }
    }

    function _sendBatch(IServiceMarketplace.Debit[] memory debits)
        internal
        returns (Outcome[] memory outcomes)
    {
        vm.recordLogs();
        vm.prank(operator);
        market.consumeQueries(debits);
        Vm.Log[] memory logs = vm.getRecordedLogs();
        assertEq(logs.length, debits.length, "one event per debit");
        outcomes = new Outcome[](debits.length);
        for (uint256 i; i < logs.length; ++i) {
            assertEq(uint256(logs[i].topics[3]), debits[i].runId, "events in batch order");
            if (logs[i].topics[0] == IServiceMarketplace.QueryConsumed.selector) {
                (uint256 price,,, bool succeeded) =
                    abi.decode(logs[i].data, (uint256, uint256, uint256, bool));
                assertEq(succeeded, debits[i].succeeded, "the run's outcome");
                outcomes[i] = Outcome(true, price, 0);
            } else {
                assertEq(logs[i].topics[0], IServiceMarketplace.QueryNotConsumed.selector);
                outcomes[i] = Outcome(false, 0, abi.decode(logs[i].data, (bytes4)));
            }
        }
    }

    /// @dev Everything a debit may change: balances, escrows, fees and the run bitmap of the ids used.
    function _state(IServiceMarketplace.Debit[] memory debits) internal view returns (bytes32 state) {
        for (uint256 i; i < listingChoices.length; ++i) {
            bytes32 id = listingChoices[i];
            state = keccak256(abi.encode(state, _escrow(id), _fees(id)));
            for (uint256 j; j < buyerChoices.length; ++j) {
                state = keccak256(abi.encode(state, _balance(id, buyerChoices[j])));
            }
        }
        for (uint256 i; i < debits.length; ++i) {
            state = keccak256(abi.encode(state, market.isRunRecorded(debits[i].runId)));
        }
    }

    function _owed() internal view returns (uint256 owed) {
        for (uint256 i; i < listingChoices.length; ++i) {
            bytes32 id = listingChoices[i];
            owed += _escrow(id) + _fees(id);
            for (uint256 j; j < buyerChoices.length; ++j) {
                owed += _balance(id, buyerChoices[j]);
            }
        }
    }
}
