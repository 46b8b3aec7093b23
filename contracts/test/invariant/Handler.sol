// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {CommonBase} from "forge-std/Base.sol";
import {StdCheats} from "forge-std/StdCheats.sol";
import {StdUtils} from "forge-std/StdUtils.sol";
import {Vm} from "forge-std/Vm.sol";
import {ServiceMarketplace} from "../../src/ServiceMarketplace.sol";
import {IServiceMarketplace} from "../../src/interfaces/IServiceMarketplace.sol";

/// @notice Drives the marketplace with valid calls only: every action picks actors, listings and amounts
/// that the contract must accept, or does nothing. Ghost variables mirror every wei in and out.
contract Handler is CommonBase, StdCheats, StdUtils {
    struct Pair {
        bytes32 listingId;
        address buyer;
    }

    ServiceMarketplace public immutable market;
    address public immutable authority;
    /// @dev The operator the contract holds now; `rotateOperator` swaps it between two hot keys.
    address public operator;
    address[2] internal _operators;
    address public immutable feeRecipient;

    uint256 public constant MAX_LISTINGS = 10;
    uint256 private constant MIN_PRICE = 0.000001 ether;
    uint256 private constant MAX_PRICE = 10 ether;
    uint256 private constant ANY_STATUS = 0xf;
    uint256 private constant OPEN = (1 << 1) | (1 << 2); // Active | Paused
    uint256 private constant ACTIVE = 1 << 1;
    bytes32 private constant QUERY_CONSUMED = IServiceMarketplace.QueryConsumed.selector;
    bytes32 private constant RUNS_ANCHORED = IServiceMarketplace.RunsAnchored.selector;
    bytes32 private constant QUERY_NOT_CONSUMED = IServiceMarketplace.QueryNotConsumed.selector;
    uint256 private constant MAX_BATCH = 5;
    uint256 private constant MAX_COUNTS = 3;

    address[] public creators;
    address[] public renters;
    bytes32[] public listingIds;
    uint256 public nextRunId = 1;
    uint256[] public usedRunIds;
    Pair[] internal _revoked;
    bytes32[] internal _closed;
    /// @dev Every root `anchor` anchored, in order.
    bytes32[] public anchoredRoots;

    // ─── Ghosts ───────────────────────────────────────────────────────────────

    /// @dev One-time, subscription and renewal payments: split into fee and share at once.
    uint256 public ghost_paidDirect;
    /// @dev Per-task deposits and top-ups: split only when consumed.
    uint256 public ghost_deposited;
    uint256 public ghost_consumed;
    uint256 public ghost_fees;
    uint256 public ghost_creatorShares;
    uint256 public ghost_expectedFees;
    uint256 public ghost_earningsWithdrawn;
    uint256 public ghost_feesWithdrawn;
    uint256 public ghost_reclaimed;
    uint256 public ghost_replaysAttempted;
    uint256 public ghost_replaysReverted;
    uint256 public ghost_replayStateChanges;
    /// @dev The block each root was first anchored in, as this handler saw it.
    mapping(bytes32 root => uint256 blockNumber) public ghost_anchorBlock;
    /// @dev `RunsAnchored` events emitted per root, and over all roots.
    mapping(bytes32 root => uint256 count) public ghost_anchorEvents;
    uint256 public ghost_anchorEventsTotal;
    /// @dev Runs and failed runs in the counts of the calls that anchored a new root.
    uint256 public ghost_anchoredRuns;
    uint256 public ghost_anchoredFailed;
    /// @dev Runs and failed runs in the counts of every emitted `RunsAnchored`.
    uint256 public ghost_emittedRuns;
    uint256 public ghost_emittedFailed;
    /// @dev Emitted counts with more failed runs than runs: must stay 0.
    uint256 public ghost_emittedFailedAboveRuns;
    /// @dev Roots sent again after they were anchored (each must be skipped).
    uint256 public ghost_anchorResends;
    /// @dev Calls a rotated-out operator made that the contract did not refuse: must stay 0.
    uint256 public ghost_staleOperatorAccepted;
    /// @dev Debits above the price the renter last agreed to (purchase or top-up): must stay 0.
    uint256 public ghost_debitsAboveAgreedPrice;
    /// @dev Debits other than the lowest of the agreed price, the current price and the run's admission
    /// price (`maxPrice`): must stay 0.
    uint256 public ghost_debitsOffPrice;
    /// @dev Debits above the price their run was admitted at: must stay 0.
    uint256 public ghost_debitsAboveMaxPrice;
    /// @dev Debits whose admission price was below both the agreed and the current price (the listing's
    /// price rose since the run was admitted), so `maxPrice` decided what they charged.
    uint256 public ghost_debitsCappedByMaxPrice;
    /// @dev Debits on a balance whose listing's price had been raised above what its renter agreed to.
    uint256 public ghost_debitsAfterRaise;
    /// @dev Batch debits that did not end as the model of `consumeQuery` says (debited at its price, or
    /// skipped for its reason, run id recorded iff debited), and paused batches not refused: must stay 0.
    uint256 public ghost_batchMismatches;
    uint256 public ghost_batchDebits;
    uint256 public ghost_batchSkips;
    /// @dev `QueryConsumed` events whose `succeeded` is not the outcome their debit was sent with: must stay 0.
    uint256 public ghost_outcomeMismatches;
    /// @dev Debits of runs that failed (charged all the same: their output had reached the renter).
    uint256 public ghost_failedRunDebits;
    /// @dev Finding M-1: debits the contract accepted on a balance whose exit had come due: must stay 0.
    uint256 public ghost_debitsAfterExitDue;
    /// @dev Finding M-1: debits of runs in flight during an exit's delay (allowed: the creator is paid).
    uint256 public ghost_debitsDuringExit;
    /// @dev Finding M-1: balances reclaimed by an exit that came due.
    uint256 public ghost_exitReclaims;
    mapping(uint256 runId => uint256 count) public ghost_consumedEvents;
    mapping(bytes32 listingId => mapping(address buyer => uint256)) public ghost_depositedOf;
    mapping(bytes32 listingId => mapping(address buyer => uint256)) public ghost_debitedOf;
    mapping(bytes32 listingId => mapping(address buyer => uint256)) public ghost_reclaimedOf;
    /// @dev The listing's price at the renter's last deposit, as this handler saw it.
    mapping(bytes32 listingId => mapping(address buyer => uint256)) public ghost_agreedPriceOf;
    mapping(string action => uint256 count) public calls;

    constructor(ServiceMarketplace market_, address authority_, address operator_, address feeRecipient_) {
        market = market_;
        authority = authority_;
        operator = operator_;
        _operators = [operator_, makeAddr("nextOperator")];
        feeRecipient = feeRecipient_;
        for (uint256 i; i < 3; ++i) {
            creators.push(makeAddr(string.concat("creator", vm.toString(i))));
        }
        for (uint256 i; i < 4; ++i) {
            renters.push(makeAddr(string.concat("renter", vm.toString(i))));
        }
    }

    // ─── Creators ─────────────────────────────────────────────────────────────

    function createListing(uint256 creatorSeed, uint256 modelSeed, uint256 priceSeed) public {
        if (market.paused() || listingIds.length >= MAX_LISTINGS) return;
        address creator = creators[creatorSeed % creators.length];
        IServiceMarketplace.RentalModel model = IServiceMarketplace.RentalModel(modelSeed % 3);
        uint96 price = uint96(_bound(priceSeed, MIN_PRICE, MAX_PRICE));
        vm.prank(creator);
        bytes32 id = market.createListing(bytes32(listingIds.length), model, price, "ipfs://agent");
        listingIds.push(id);
        ++calls["createListing"];
    }

    function updatePrice(uint256 listingSeed, uint256 priceSeed) external {
        (bytes32 id, bool found) = _pickListing(listingSeed, 0x7, OPEN);
        if (!found) return;
        uint96 price = uint96(_bound(priceSeed, MIN_PRICE, MAX_PRICE));
        address creator = _creatorOf(id);
        vm.prank(creator);
        market.updateListing(id, price, "ipfs://agent-v2");
        ++calls["updateListing"];
    }

    function setListingActive(uint256 listingSeed, bool active) external {
        (bytes32 id, bool found) = _pickListing(listingSeed, 0x7, OPEN);
        if (!found) return;
        address creator = _creatorOf(id);
        vm.prank(creator);
        market.setListingActive(id, active);
        ++calls["setListingActive"];
    }

    /// @dev Empties the escrow first when needed, since only an empty listing may close.
    function closeListing(uint256 listingSeed) external {
        // Closing is final: keep it rarer than the other actions so most listings stay tradeable.
        if (listingSeed % 3 != 0) return;
        (bytes32 id, bool found) = _pickListing(listingSeed, 0x7, OPEN);
        if (!found) return;
        address creator = _creatorOf(id);
        uint256 escrow = _escrowOf(id);
        if (escrow != 0) _withdraw(id, creator, escrow);
        vm.prank(creator);
        market.closeListing(id);
        _closed.push(id);
        ++calls["closeListing"];
    }

    /// @dev Finding L-7: a creator pauses a listing (unless it already is) and empties and closes it in one
    /// call, whatever debits landed before it.
    function withdrawAndClose(uint256 listingSeed) external {
        if (listingSeed % 3 != 0) return;
        (bytes32 id, bool found) = _pickListing(listingSeed, 0x7, OPEN);
        if (!found) return;
        address creator = _creatorOf(id);
        (,,,,, IServiceMarketplace.ListingStatus status) = market.listings(id);
        if (status == IServiceMarketplace.ListingStatus.Active) {
            vm.prank(creator);
            market.setListingActive(id, false);
        }
        uint256 before = creator.balance;
        vm.prank(creator);
        market.withdrawAndClose(id);
        ghost_earningsWithdrawn += creator.balance - before;
        _closed.push(id);
        ++calls["withdrawAndClose"];
    }

    function revokeAccess(uint256 listingSeed, uint256 renterSeed) external {
        // One-time or subscription listings, in any status.
        (bytes32 id, bool found) = _pickListing(listingSeed, 0x3, ANY_STATUS);
        if (!found) return;
        for (uint256 i; i < renters.length; ++i) {
            address buyer = renters[_at(renterSeed, i, renters.length)];
            (, uint40 purchasedAt,, bool isRevoked) = market.credentials(id, buyer);
            if (purchasedAt == 0 || isRevoked) continue;
            address creator = _creatorOf(id);
            vm.prank(creator);
            market.revokeAccess(id, buyer);
            _revoked.push(Pair(id, buyer));
            ++calls["revokeAccess"];
            return;
        }
    }

    function revokePerQueryAccess(uint256 listingSeed, uint256 renterSeed) external {
        (bytes32 id, bool found) = _pickListing(listingSeed, 0x4, ANY_STATUS);
        if (!found) return;
        for (uint256 i; i < renters.length; ++i) {
            address buyer = renters[_at(renterSeed, i, renters.length)];
            (,, uint40 purchasedAt, bool isRevoked,) = market.perQueryBalances(id, buyer);
            if (purchasedAt == 0 || isRevoked) continue;
            address creator = _creatorOf(id);
            vm.prank(creator);
            market.revokePerQueryAccess(id, buyer);
            _revoked.push(Pair(id, buyer));
            ++calls["revokePerQueryAccess"];
            return;
        }
    }

    function withdrawEarnings(uint256 listingSeed, uint256 amountSeed) external {
        uint256 n = listingIds.length;
        for (uint256 i; i < n; ++i) {
            bytes32 id = listingIds[_at(listingSeed, i, n)];
            uint256 escrow = _escrowOf(id);
            if (escrow == 0) continue;
            _withdraw(id, _creatorOf(id), _bound(amountSeed, 1, escrow));
            ++calls["withdrawEarnings"];
            return;
        }
    }

    // ─── Renters ──────────────────────────────────────────────────────────────

    function purchaseOneTime(uint256 listingSeed, uint256 renterSeed) external {
        if (market.paused()) return;
        (bytes32 id, bool found) = _pickListing(listingSeed, 0x1, ACTIVE);
        if (!found) return;
        for (uint256 i; i < renters.length; ++i) {
            address buyer = renters[_at(renterSeed, i, renters.length)];
            (, uint40 purchasedAt,,) = market.credentials(id, buyer);
            if (purchasedAt != 0) continue;
            uint256 price = _priceOf(id);
            _fund(buyer, price);
            (uint256 escrowBefore, uint256 feesBefore, uint256 bps) = _snapshot(id);
            vm.prank(buyer);
            market.purchaseOneTime{value: price}(id);
            ghost_paidDirect += price;
            _recordSplit(id, price, escrowBefore, feesBefore, bps);
            ++calls["purchaseOneTime"];
            return;
        }
    }

    function purchaseSubscription(uint256 listingSeed, uint256 renterSeed, uint256 durationSeed) external {
        if (market.paused()) return;
        (bytes32 id, bool found) = _pickListing(listingSeed, 0x2, ACTIVE);
        if (!found) return;
        for (uint256 i; i < renters.length; ++i) {
            address buyer = renters[_at(renterSeed, i, renters.length)];
            (, uint40 purchasedAt,,) = market.credentials(id, buyer);
            if (purchasedAt != 0) continue;
            uint256 duration = _duration(durationSeed);
            uint256 quote = market.subscriptionQuote(id, duration);
            _fund(buyer, quote);
            (uint256 escrowBefore, uint256 feesBefore, uint256 bps) = _snapshot(id);
            vm.prank(buyer);
            market.purchaseSubscription{value: quote}(id, duration);
            ghost_paidDirect += quote;
            _recordSplit(id, quote, escrowBefore, feesBefore, bps);
            ++calls["purchaseSubscription"];
            return;
        }
    }

    function renewSubscription(uint256 listingSeed, uint256 renterSeed, uint256 durationSeed) external {
        if (market.paused()) return;
        (bytes32 id, bool found) = _pickListing(listingSeed, 0x2, ACTIVE);
        if (!found) return;
        for (uint256 i; i < renters.length; ++i) {
            address buyer = renters[_at(renterSeed, i, renters.length)];
            (, uint40 purchasedAt,, bool isRevoked) = market.credentials(id, buyer);
            if (purchasedAt == 0 || isRevoked) continue;
            uint256 duration = _duration(durationSeed);
            uint256 quote = market.subscriptionQuote(id, duration);
            _fund(buyer, quote);
            (uint256 escrowBefore, uint256 feesBefore, uint256 bps) = _snapshot(id);
            vm.prank(buyer);
            market.renewSubscription{value: quote}(id, duration);
            ghost_paidDirect += quote;
            _recordSplit(id, quote, escrowBefore, feesBefore, bps);
            ++calls["renewSubscription"];
            return;
        }
    }

    function purchasePerQuery(uint256 listingSeed, uint256 renterSeed, uint256 amountSeed) external {
        if (market.paused()) return;
        (bytes32 id, bool found) = _pickListing(listingSeed, 0x4, ACTIVE);
        if (!found) return;
        for (uint256 i; i < renters.length; ++i) {
            address buyer = renters[_at(renterSeed, i, renters.length)];
            (,, uint40 purchasedAt,,) = market.perQueryBalances(id, buyer);
            if (purchasedAt != 0) continue;
            uint256 price = _priceOf(id);
            uint256 amount = _bound(amountSeed, price, price * 20);
            _fund(buyer, amount);
            vm.prank(buyer);
            market.purchasePerQuery{value: amount}(id, price);
            ghost_deposited += amount;
            ghost_depositedOf[id][buyer] += amount;
            ghost_agreedPriceOf[id][buyer] = price;
            ++calls["purchasePerQuery"];
            return;
        }
    }

    function topUpBalance(uint256 listingSeed, uint256 renterSeed, uint256 amountSeed) external {
        if (market.paused()) return;
        (bytes32 id, bool found) = _pickListing(listingSeed, 0x4, ACTIVE);
        if (!found) return;
        for (uint256 i; i < renters.length; ++i) {
            address buyer = renters[_at(renterSeed, i, renters.length)];
            (,, uint40 purchasedAt, bool isRevoked,) = market.perQueryBalances(id, buyer);
            if (purchasedAt == 0 || isRevoked) continue;
            uint256 price = _priceOf(id);
            uint256 amount = _bound(amountSeed, price, price * 10);
            _fund(buyer, amount);
            vm.prank(buyer);
            market.topUpBalance{value: amount}(id, price);
            ghost_deposited += amount;
            ghost_depositedOf[id][buyer] += amount;
            ghost_agreedPriceOf[id][buyer] = price;
            ++calls["topUpBalance"];
            return;
        }
    }

    /// @dev Finding M-1: a renter asks for its balance back, on any listing, paused protocol or not.
    function requestExit(uint256 listingSeed, uint256 renterSeed) external {
        (bytes32 id, bool found) = _pickListing(listingSeed, 0x4, ANY_STATUS);
        if (!found) return;
        for (uint256 i; i < renters.length; ++i) {
            address buyer = renters[_at(renterSeed, i, renters.length)];
            (uint96 balance,, uint40 purchasedAt, bool isRevoked, bool isExiting) =
                market.perQueryBalances(id, buyer);
            if (purchasedAt == 0 || isRevoked || isExiting || balance == 0) continue;
            vm.prank(buyer);
            market.requestExit(id);
            ++calls["requestExit"];
            return;
        }
    }

    /// @dev Finding M-1: the operator tries to debit a balance whose exit came due; the contract must refuse.
    function debitDueExit(uint256 listingSeed, uint256 renterSeed) external {
        if (market.paused()) return;
        (bytes32 id, address buyer, bool found) = _dueExit(listingSeed, renterSeed);
        if (!found) return;
        uint256 runId = nextRunId++;
        vm.prank(operator);
        try market.consumeQuery(id, buyer, runId, _nextDebit(id, buyer), true) {
            ++ghost_debitsAfterExitDue;
        } catch {}
        ++calls["debitDueExit"];
    }

    /// @dev Reclaims one balance, a due exit first where there is one, so that exits are reclaimed as often as
    /// revoked and closed balances.
    function reclaimBalance(uint256 listingSeed, uint256 renterSeed) external {
        (bytes32 exiting, address exiter, bool found) = _dueExit(listingSeed, renterSeed);
        if (found && _tryReclaim(exiting, exiter)) {
            ++calls["reclaimBalance"];
            return;
        }
        uint256 n = listingIds.length;
        for (uint256 j; j < n; ++j) {
            bytes32 id = listingIds[_at(listingSeed, j, n)];
            for (uint256 i; i < renters.length; ++i) {
                if (_tryReclaim(id, renters[_at(renterSeed, i, renters.length)])) {
                    ++calls["reclaimBalance"];
                    return;
                }
            }
        }
    }

    /// @dev A balance whose renter asked for it back, with time moved on to when the exit is due: an exit
    /// needs a request and then two days, which random warps between them rarely line up.
    function _dueExit(uint256 listingSeed, uint256 renterSeed)
        internal
        returns (bytes32 id, address buyer, bool found)
    {
        uint256 n = listingIds.length;
        for (uint256 j; j < n; ++j) {
            id = listingIds[_at(listingSeed, j, n)];
            for (uint256 i; i < renters.length; ++i) {
                buyer = renters[_at(renterSeed, i, renters.length)];
                uint256 reclaimableAt = market.exitReclaimableAt(id, buyer);
                if (reclaimableAt == 0) continue;
                if (block.timestamp < reclaimableAt) vm.warp(reclaimableAt);
                return (id, buyer, true);
            }
        }
    }

    function _tryReclaim(bytes32 id, address buyer) internal returns (bool) {
        (,,,, IServiceMarketplace.RentalModel model, IServiceMarketplace.ListingStatus status) =
            market.listings(id);
        if (model != IServiceMarketplace.RentalModel.PerQuery) return false;
        bool closed_ = status == IServiceMarketplace.ListingStatus.Closed;
        (uint96 balance,, uint40 purchasedAt, bool isRevoked,) = market.perQueryBalances(id, buyer);
        bool exitDue = _exitDue(id, buyer);
        if (purchasedAt == 0 || balance == 0 || !(isRevoked || closed_ || exitDue)) return false;
        if (exitDue && !isRevoked && !closed_) ++ghost_exitReclaims;
        vm.prank(buyer);
        market.reclaimBalance(id);
        ghost_reclaimed += balance;
        ghost_reclaimedOf[id][buyer] += balance;
        return true;
    }

    // ─── Operator and authority ───────────────────────────────────────────────

    /// @dev Debits a fresh run id admitted at a price from `maxPriceSeed`, succeeded or failed by `replaySeed`,
    /// or (one call in four) replays a settled one, which must revert RunAlreadyRecorded and change nothing.
    function consumeQuery(uint256 listingSeed, uint256 renterSeed, uint256 replaySeed, uint256 maxPriceSeed)
        external
    {
        if (market.paused()) return;
        uint256 n = listingIds.length;
        for (uint256 j; j < n; ++j) {
            bytes32 id = listingIds[_at(listingSeed, j, n)];
            (address buyer, bool found) = _consumable(id, renterSeed);
            if (!found) continue;
            if (replaySeed % 4 == 0 && usedRunIds.length != 0) {
                _replay(id, buyer, usedRunIds[replaySeed % usedRunIds.length]);
            } else {
                _consumeFresh(
                    id, buyer, _admissionPrice(id, buyer, maxPriceSeed), (replaySeed >> 128) & 1 == 0
                );
            }
            return;
        }
    }

    /// @dev A batch of up to `MAX_BATCH` debits: fresh run ids on credentials that can pay and, by `mixSeed`,
    /// replayed run ids, a run id repeated within the batch, and pairs the contract must skip (any listing
    /// and renter, an unknown listing). Each debit must end as `_expectedOutcome` says; a paused protocol
    /// must refuse the whole batch. Sent by `consumeQueries` or, by `mixSeed`, by `settle` with no anchor,
    /// which must debit the same.
    function consumeQueries(uint256 sizeSeed, uint256 listingSeed, uint256 renterSeed, uint256 mixSeed)
        external
    {
        IServiceMarketplace.Debit[] memory debits =
            _batch(_bound(sizeSeed, 1, MAX_BATCH), listingSeed, renterSeed, mixSeed);
        address caller = mixSeed >> 255 == 1 ? authority : operator;
        bool bySettle = (mixSeed >> 254) & 1 == 1;
        if (market.paused()) {
            bytes memory batchCall = bySettle
                ? abi.encodeCall(market.settle, (debits, bytes32(0), new IServiceMarketplace.RunCount[](0)))
                : abi.encodeCall(market.consumeQueries, (debits));
            vm.prank(caller);
            (bool sent, bytes memory reason) = address(market).call(batchCall);
            if (sent || bytes4(reason) != IServiceMarketplace.ProtocolPaused.selector) {
                ++ghost_batchMismatches;
            }
            ++calls["consumeQueries.paused"];
            return;
        }
        Expected[] memory expected = _expectedOutcomes(debits);
        (uint256 escrowBefore, uint256 feesBefore) = _totals();
        vm.recordLogs();
        vm.prank(caller);
        if (bySettle) market.settle(debits, bytes32(0), new IServiceMarketplace.RunCount[](0));
        else market.consumeQueries(debits);
        _checkBatch(debits, expected, vm.getRecordedLogs());
        (uint256 escrowAfter, uint256 feesAfter) = _totals();
        ghost_fees += feesAfter - feesBefore;
        ghost_creatorShares += escrowAfter - escrowBefore;
        ++calls[bySettle ? "consumeQueries.settle" : "consumeQueries"];
    }

    /// @dev A renter whose per-task credential on an open listing `id` can pay one run at the lower of the
    /// agreed and the current price (so at any admission price too).
    function _consumable(bytes32 id, uint256 renterSeed) internal view returns (address, bool) {
        (,,,, IServiceMarketplace.RentalModel model, IServiceMarketplace.ListingStatus status) =
            market.listings(id);
        if (model != IServiceMarketplace.RentalModel.PerQuery || (OPEN >> uint8(status)) & 1 == 0) {
            return (address(0), false);
        }
        for (uint256 i; i < renters.length; ++i) {
            address buyer = renters[_at(renterSeed, i, renters.length)];
            (uint96 balance,, uint40 purchasedAt, bool isRevoked,) = market.perQueryBalances(id, buyer);
            if (purchasedAt != 0 && !isRevoked && !_exitDue(id, buyer) && balance >= _nextDebit(id, buyer)) {
                return (buyer, true);
            }
        }
        return (address(0), false);
    }

    /// @dev The creator's attack on a prepaid balance: raise the price to all of it, then wait for a run.
    function raisePriceToBalance(uint256 listingSeed, uint256 renterSeed) external {
        (bytes32 id, bool found) = _pickListing(listingSeed, 0x4, OPEN);
        if (!found) return;
        for (uint256 i; i < renters.length; ++i) {
            address buyer = renters[_at(renterSeed, i, renters.length)];
            (uint96 balance,,,,) = market.perQueryBalances(id, buyer);
            if (balance < MIN_PRICE || balance > type(uint96).max) continue;
            vm.prank(_creatorOf(id));
            market.updateListing(id, uint96(balance), "ipfs://agent-v3");
            ++calls["raisePriceToBalance"];
            return;
        }
    }

    /// @dev Anchors a root alone (`settle` with no debits), in a block of its own, by the operator or the
    /// authority, paused or not: by `rootSeed` a fresh root, a root anchored before (half the time once there
    /// is one: it must be skipped) or, rarely, the zero root with no counts (nothing anchored); with up to
    /// `MAX_COUNTS` counts of any listing id, known or not, each with at most as many failed runs as runs.
    function anchor(uint256 rootSeed, uint256 countSeed, bool byAuthority) external {
        bytes32 root = _anchorRoot(rootSeed);
        IServiceMarketplace.RunCount[] memory counts = _runCounts(root == 0 ? 0 : countSeed);
        bool fresh = root != 0 && ghost_anchorBlock[root] == 0;
        if (!fresh && root != 0) ++ghost_anchorResends;
        vm.roll(block.number + 1);
        vm.recordLogs();
        vm.prank(byAuthority ? authority : operator);
        market.settle(new IServiceMarketplace.Debit[](0), root, counts);
        _countAnchors(vm.getRecordedLogs());
        if (fresh) {
            ghost_anchorBlock[root] = block.number;
            anchoredRoots.push(root);
            for (uint256 i; i < counts.length; ++i) {
                ghost_anchoredRuns += counts[i].runs;
                ghost_anchoredFailed += counts[i].failed;
            }
        }
        ++calls["anchor"];
    }

    function withdrawFees() external {
        uint256 total;
        for (uint256 i; i < listingIds.length; ++i) {
            total += _feesOf(listingIds[i]);
        }
        if (total == 0) return;
        uint256 before = feeRecipient.balance;
        vm.prank(feeRecipient);
        market.withdrawFees(listingIds);
        ghost_feesWithdrawn += feeRecipient.balance - before;
        ++calls["withdrawFees"];
    }

    function setFeeBasisPoints(uint256 bps) external {
        bps = _bound(bps, 0, 1000);
        vm.prank(authority);
        market.setFeeBasisPoints(bps);
        ++calls["setFeeBasisPoints"];
    }

    /// @dev Paused a quarter of the time, so most sequences keep trading.
    function setPaused(uint256 seed) external {
        vm.prank(authority);
        market.setPaused(seed % 4 == 0);
        ++calls["setPaused"];
    }

    /// @dev Rotates the hot key; the one rotated out is refused at once, even for an empty settlement.
    function rotateOperator() external {
        address previous = operator;
        operator = _operators[0] == previous ? _operators[1] : _operators[0];
        vm.prank(authority);
        market.setOperator(operator);
        vm.prank(previous);
        try market.settle(
            new IServiceMarketplace.Debit[](0), bytes32(0), new IServiceMarketplace.RunCount[](0)
        ) {
            ++ghost_staleOperatorAccepted;
        } catch {}
        ++calls["rotateOperator"];
    }

    function warp(uint256 secondsSeed) external {
        vm.warp(block.timestamp + _bound(secondsSeed, 1, 120 days));
        ++calls["warp"];
    }

    // ─── Views for the invariants ─────────────────────────────────────────────

    function listingCount() external view returns (uint256) {
        return listingIds.length;
    }

    function renterCount() external view returns (uint256) {
        return renters.length;
    }

    function usedRunIdCount() external view returns (uint256) {
        return usedRunIds.length;
    }

    function anchoredRootCount() external view returns (uint256) {
        return anchoredRoots.length;
    }

    function revoked() external view returns (Pair[] memory) {
        return _revoked;
    }

    function closed() external view returns (bytes32[] memory) {
        return _closed;
    }

    /// @dev What this run did of the operations that invariants (c) to (g) are about.
    function exercised()
        external
        view
        returns (
            uint256 debits,
            uint256 refusedReplays,
            uint256 revocations,
            uint256 closes,
            uint256 debitsAfterRaise
        )
    {
        return (
            calls["consumeQuery"] + ghost_batchDebits,
            ghost_replaysReverted,
            _revoked.length,
            _closed.length,
            ghost_debitsAfterRaise
        );
    }

    // ─── Internals ────────────────────────────────────────────────────────────

    function _consumeFresh(bytes32 id, address buyer, uint256 maxPrice, bool succeeded) internal {
        uint256 runId = nextRunId++;
        (uint256 escrowBefore, uint256 feesBefore, uint256 bps) = _snapshot(id);
        (uint96 balanceBefore,,,,) = market.perQueryBalances(id, buyer);
        uint256 agreed = ghost_agreedPriceOf[id][buyer];
        uint256 expected = _expectedDebit(id, buyer, maxPrice);
        vm.recordLogs();
        vm.prank(operator);
        market.consumeQuery(id, buyer, runId, maxPrice, succeeded);
        ghost_consumedEvents[runId] += _countDebits(runId, succeeded);
        if (market.exitReclaimableAt(id, buyer) != 0) ++ghost_debitsDuringExit;
        usedRunIds.push(runId);
        (uint96 balanceAfter,,,,) = market.perQueryBalances(id, buyer);
        uint256 debited = balanceBefore - balanceAfter;
        if (debited > agreed) ++ghost_debitsAboveAgreedPrice;
        if (debited != expected) ++ghost_debitsOffPrice;
        _countMaxPrice(id, buyer, debited, maxPrice);
        if (_priceOf(id) > agreed) ++ghost_debitsAfterRaise;
        ghost_consumed += debited;
        ghost_debitedOf[id][buyer] += debited;
        _recordSplit(id, debited, escrowBefore, feesBefore, bps);
        ++calls["consumeQuery"];
    }

    /// @dev What the model says one debit of a batch does: debit `price`, or skip for `refusal`.
    struct Expected {
        uint256 price;
        bytes4 refusal;
        bool recordedBefore;
    }

    function _batch(uint256 size, uint256 listingSeed, uint256 renterSeed, uint256 mixSeed)
        internal
        returns (IServiceMarketplace.Debit[] memory debits)
    {
        debits = new IServiceMarketplace.Debit[](size);
        uint256 n = listingIds.length;
        for (uint256 i; i < size; ++i) {
            uint256 kind = (mixSeed >> (i * 8)) % 8;
            bytes32 id = listingIds[_at(listingSeed, i, n)];
            address buyer = renters[_at(renterSeed, i, renters.length)];
            if (kind < 4) {
                for (uint256 j; j < n; ++j) {
                    (address payer, bool found) =
                        _consumable(listingIds[_at(listingSeed, i + j, n)], renterSeed % renters.length + i);
                    if (!found) continue;
                    (id, buyer) = (listingIds[_at(listingSeed, i + j, n)], payer);
                    break;
                }
            } else if (kind == 7) {
                id = keccak256(abi.encode("no such listing", i));
            }
            uint256 runId;
            if (kind == 5 && usedRunIds.length != 0) runId = usedRunIds[(mixSeed >> 64) % usedRunIds.length];
            else if (kind == 6 && i != 0) runId = debits[i - 1].runId;
            else runId = nextRunId++;
            uint256 maxPrice = _admissionPrice(id, buyer, uint256(keccak256(abi.encode(mixSeed, i))));
            bool succeeded = (mixSeed >> (128 + i)) & 1 == 0;
            debits[i] = IServiceMarketplace.Debit(id, buyer, runId, maxPrice, succeeded);
        }
    }

    /// @dev The model of `consumeQuery`, applied in order: each debit sees the balances and run ids the
    /// debits before it in the batch left.
    function _expectedOutcomes(IServiceMarketplace.Debit[] memory debits)
        internal
        view
        returns (Expected[] memory expected)
    {
        expected = new Expected[](debits.length);
        uint256[] memory spent = new uint256[](debits.length);
        for (uint256 i; i < debits.length; ++i) {
            IServiceMarketplace.Debit memory debit = debits[i];
            uint256 alreadySpent;
            bool recordedInBatch;
            for (uint256 j; j < i; ++j) {
                if (expected[j].refusal != 0) continue;
                if (debits[j].listingId == debit.listingId && debits[j].buyer == debit.buyer) {
                    alreadySpent += spent[j];
                }
                if (debits[j].runId == debit.runId) recordedInBatch = true;
            }
            expected[i].recordedBefore = market.isRunRecorded(debit.runId);
            expected[i].refusal = _expectedRefusal(debit, alreadySpent, recordedInBatch);
            if (expected[i].refusal == 0) {
                expected[i].price = _expectedDebit(debit.listingId, debit.buyer, debit.maxPrice);
                spent[i] = expected[i].price;
            }
        }
    }

    function _expectedRefusal(
        IServiceMarketplace.Debit memory debit,
        uint256 alreadySpent,
        bool recordedInBatch
    ) internal view returns (bytes4) {
        (,,,, IServiceMarketplace.RentalModel model, IServiceMarketplace.ListingStatus status) =
            market.listings(debit.listingId);
        if (status == IServiceMarketplace.ListingStatus.None) {
            return IServiceMarketplace.ListingNotFound.selector;
        }
        if (status == IServiceMarketplace.ListingStatus.Closed) {
            return IServiceMarketplace.ListingNotActive.selector;
        }
        if (model != IServiceMarketplace.RentalModel.PerQuery) {
            return IServiceMarketplace.InvalidAccessType.selector;
        }
        (uint96 balance,, uint40 purchasedAt, bool isRevoked,) =
            market.perQueryBalances(debit.listingId, debit.buyer);
        if (purchasedAt == 0) return IServiceMarketplace.CredentialNotFound.selector;
        if (isRevoked) return IServiceMarketplace.CredentialRevoked.selector;
        if (_exitDue(debit.listingId, debit.buyer)) return IServiceMarketplace.ExitPending.selector;
        if (balance - alreadySpent < _expectedDebit(debit.listingId, debit.buyer, debit.maxPrice)) {
            return IServiceMarketplace.InsufficientBalance.selector;
        }
        if (recordedInBatch || market.isRunRecorded(debit.runId)) {
            return IServiceMarketplace.RunAlreadyRecorded.selector;
        }
        return 0;
    }

    /// @dev Compares each debit's event with the model, and keeps the ghost sums of what was debited.
    function _checkBatch(
        IServiceMarketplace.Debit[] memory debits,
        Expected[] memory expected,
        Vm.Log[] memory logs
    ) internal {
        uint256 seen;
        uint256 bps = market.feeBasisPoints();
        for (uint256 k; k < logs.length; ++k) {
            Vm.Log memory log = logs[k];
            if (log.emitter != address(market)) continue;
            if (log.topics[0] != QUERY_CONSUMED && log.topics[0] != QUERY_NOT_CONSUMED) continue;
            if (seen == debits.length) {
                ++ghost_batchMismatches;
                break;
            }
            IServiceMarketplace.Debit memory debit = debits[seen];
            Expected memory want = expected[seen++];
            if (uint256(log.topics[3]) != debit.runId) ++ghost_batchMismatches;
            if (log.topics[0] == QUERY_NOT_CONSUMED) {
                if (abi.decode(log.data, (bytes4)) != want.refusal || want.refusal == 0) {
                    ++ghost_batchMismatches;
                }
                ++ghost_batchSkips;
                continue;
            }
            ++ghost_consumedEvents[debit.runId];
            (uint256 price,,, bool succeeded) = abi.decode(log.data, (uint256, uint256, uint256, bool));
            _checkOutcome(succeeded, debit.succeeded);
            uint256 agreed = ghost_agreedPriceOf[debit.listingId][debit.buyer];
            if (want.refusal != 0) ++ghost_batchMismatches;
            if (price > agreed) ++ghost_debitsAboveAgreedPrice;
            if (price != want.price) ++ghost_debitsOffPrice;
            _countMaxPrice(debit.listingId, debit.buyer, price, debit.maxPrice);
            if (_priceOf(debit.listingId) > agreed) ++ghost_debitsAfterRaise;
            usedRunIds.push(debit.runId);
            ghost_consumed += price;
            ghost_debitedOf[debit.listingId][debit.buyer] += price;
            ghost_expectedFees += price * bps / 10_000;
            if (market.exitReclaimableAt(debit.listingId, debit.buyer) != 0) ++ghost_debitsDuringExit;
            ++ghost_batchDebits;
        }
        if (seen != debits.length) ++ghost_batchMismatches;
        for (uint256 i; i < debits.length; ++i) {
            bool debitedHere;
            for (uint256 j; j < debits.length; ++j) {
                if (debits[j].runId == debits[i].runId && expected[j].refusal == 0) debitedHere = true;
            }
            if (market.isRunRecorded(debits[i].runId) != (debitedHere || expected[i].recordedBefore)) {
                ++ghost_batchMismatches;
            }
        }
    }

    /// @dev Escrow and fees summed over every listing, to see what a batch across listings split.
    function _totals() internal view returns (uint256 escrow, uint256 fees) {
        for (uint256 i; i < listingIds.length; ++i) {
            (,, uint256 e, uint256 f,,) = market.listings(listingIds[i]);
            escrow += e;
            fees += f;
        }
    }

    /// @dev What the next run should cost `buyer` on `id` if admitted now: a cut applies at once, a raise
    /// only after a deposit.
    function _nextDebit(bytes32 id, address buyer) internal view returns (uint256) {
        uint256 agreed = ghost_agreedPriceOf[id][buyer];
        uint256 current = _priceOf(id);
        return agreed < current ? agreed : current;
    }

    /// @dev What a run admitted at `maxPrice` should cost: a raise since its admission never reaches it.
    function _expectedDebit(bytes32 id, address buyer, uint256 maxPrice) internal view returns (uint256) {
        uint256 next = _nextDebit(id, buyer);
        return maxPrice < next ? maxPrice : next;
    }

    /// @dev The price a run was admitted at, as the service would send it: by `seed`, the next debit's price
    /// now (admitted just now), or any price from the least to the agreed one (admitted when the listing's
    /// price was that, since raised or cut).
    function _admissionPrice(bytes32 id, address buyer, uint256 seed) internal view returns (uint256) {
        if (seed % 2 == 0) return _nextDebit(id, buyer);
        uint256 agreed = ghost_agreedPriceOf[id][buyer];
        return _bound(seed, MIN_PRICE, agreed > MIN_PRICE ? agreed : MIN_PRICE);
    }

    /// @dev Checks a debit against its run's admission price, and counts it if that price decided it.
    function _countMaxPrice(bytes32 id, address buyer, uint256 debited, uint256 maxPrice) internal {
        if (debited > maxPrice) ++ghost_debitsAboveMaxPrice;
        if (maxPrice < _nextDebit(id, buyer)) ++ghost_debitsCappedByMaxPrice;
    }

    function _replay(bytes32 id, address buyer, uint256 runId) internal {
        (uint96 balanceBefore,,,,) = market.perQueryBalances(id, buyer);
        (uint256 escrowBefore, uint256 feesBefore,) = _snapshot(id);
        uint256 maxPrice = _nextDebit(id, buyer);
        ++ghost_replaysAttempted;
        vm.recordLogs();
        vm.prank(operator);
        try market.consumeQuery(id, buyer, runId, maxPrice, true) {}
        catch (bytes memory reason) {
            if (
                keccak256(reason)
                    == keccak256(
                        abi.encodeWithSelector(IServiceMarketplace.RunAlreadyRecorded.selector, runId)
                    )
            ) {
                ++ghost_replaysReverted;
            }
        }
        ghost_consumedEvents[runId] += _countLogs(QUERY_CONSUMED, runId, true);
        (uint96 balanceAfter,,,,) = market.perQueryBalances(id, buyer);
        (uint256 escrowAfter, uint256 feesAfter,) = _snapshot(id);
        if (balanceAfter != balanceBefore || escrowAfter != escrowBefore || feesAfter != feesBefore) {
            ++ghost_replayStateChanges;
        }
        ++calls["consumeQuery.replay"];
    }

    /// @dev Whether `buyer` asked for its balance on `id` back at least `EXIT_DELAY` ago (and has not had it).
    function _exitDue(bytes32 id, address buyer) internal view returns (bool) {
        uint256 reclaimableAt = market.exitReclaimableAt(id, buyer);
        return reclaimableAt != 0 && block.timestamp >= reclaimableAt;
    }

    function _withdraw(bytes32 id, address creator, uint256 amount) internal {
        uint256 before = creator.balance;
        vm.prank(creator);
        market.withdrawEarnings(id, amount);
        ghost_earningsWithdrawn += creator.balance - before;
    }

    function _recordSplit(bytes32 id, uint256 amount, uint256 escrowBefore, uint256 feesBefore, uint256 bps)
        internal
    {
        (uint256 escrowAfter, uint256 feesAfter,) = _snapshot(id);
        ghost_fees += feesAfter - feesBefore;
        ghost_creatorShares += escrowAfter - escrowBefore;
        ghost_expectedFees += amount * bps / 10_000;
    }

    /// @dev First listing from `seed` on whose model bit is in `modelMask` and status bit in `statusMask`.
    function _pickListing(uint256 seed, uint256 modelMask, uint256 statusMask)
        internal
        view
        returns (bytes32, bool)
    {
        uint256 n = listingIds.length;
        for (uint256 i; i < n; ++i) {
            bytes32 id = listingIds[_at(seed, i, n)];
            (,,,, IServiceMarketplace.RentalModel model, IServiceMarketplace.ListingStatus status) =
                market.listings(id);
            if ((modelMask >> uint8(model)) & 1 == 1 && (statusMask >> uint8(status)) & 1 == 1) {
                return (id, true);
            }
        }
        return (bytes32(0), false);
    }

    /// @dev A root to anchor, by `seed`: one anchored before (half the time, once there is one), the zero
    /// root (one time in 16), else a fresh one.
    function _anchorRoot(uint256 seed) internal view returns (bytes32) {
        if (seed % 2 == 0 && anchoredRoots.length != 0) {
            return anchoredRoots[(seed >> 8) % anchoredRoots.length];
        }
        if ((seed >> 1) % 16 == 0) return bytes32(0);
        return keccak256(abi.encode("receipts root", seed));
    }

    /// @dev Up to `MAX_COUNTS` counts by `seed` (none when `seed` is 0): of a known or an unknown listing,
    /// each of up to a batch's worth of runs, of which at most all failed.
    function _runCounts(uint256 seed) internal view returns (IServiceMarketplace.RunCount[] memory counts) {
        counts = new IServiceMarketplace.RunCount[](seed == 0 ? 0 : _bound(seed, 0, MAX_COUNTS));
        for (uint256 i; i < counts.length; ++i) {
            uint256 word = uint256(keccak256(abi.encode(seed, i)));
            bytes32 id = word % 4 == 0 || listingIds.length == 0
                ? keccak256(abi.encode("no such listing", word))
                : listingIds[(word >> 8) % listingIds.length];
            uint32 runs = uint32(_bound(word >> 16, 0, 1000));
            counts[i] = IServiceMarketplace.RunCount(id, runs, uint32(_bound(word >> 64, 0, runs)));
        }
    }

    /// @dev Counts the recorded `RunsAnchored` events per root and sums their counts.
    function _countAnchors(Vm.Log[] memory logs) internal {
        for (uint256 i; i < logs.length; ++i) {
            if (logs[i].emitter != address(market) || logs[i].topics[0] != RUNS_ANCHORED) continue;
            ++ghost_anchorEvents[logs[i].topics[1]];
            ++ghost_anchorEventsTotal;
            IServiceMarketplace.RunCount[] memory counts =
                abi.decode(logs[i].data, (IServiceMarketplace.RunCount[]));
            for (uint256 j; j < counts.length; ++j) {
                ghost_emittedRuns += counts[j].runs;
                ghost_emittedFailed += counts[j].failed;
                if (counts[j].failed > counts[j].runs) ++ghost_emittedFailedAboveRuns;
            }
        }
    }

    /// @dev The `QueryConsumed` events of `runId` among the recorded logs, each checked to carry `succeeded`.
    function _countDebits(uint256 runId, bool succeeded) internal returns (uint256 count) {
        Vm.Log[] memory logs = vm.getRecordedLogs();
        for (uint256 i; i < logs.length; ++i) {
            if (logs[i].emitter != address(market) || logs[i].topics[0] != QUERY_CONSUMED) continue;
            if (logs[i].topics[3] != bytes32(runId)) continue;
            (,,, bool carried) = abi.decode(logs[i].data, (uint256, uint256, uint256, bool));
            _checkOutcome(carried, succeeded);
            ++count;
        }
    }

    /// @dev Counts a debit's event against the outcome its debit was sent with.
    function _checkOutcome(bool carried, bool sent) internal {
        if (carried != sent) ++ghost_outcomeMismatches;
        if (!sent) ++ghost_failedRunDebits;
    }

    function _countLogs(bytes32 topic0, uint256 runId, bool matchRunId) internal returns (uint256 count) {
        Vm.Log[] memory logs = vm.getRecordedLogs();
        for (uint256 i; i < logs.length; ++i) {
            if (logs[i].emitter != address(market) || logs[i].topics[0] != topic0) continue;
            if (matchRunId && logs[i].topics[3] != bytes32(runId)) continue;
            ++count;
        }
    }

    /// @dev The `i`-th index after `seed`, wrapping in `n`, without overflowing on large seeds.
    function _at(uint256 seed, uint256 i, uint256 n) internal pure returns (uint256) {
        return (seed % n + i) % n;
    }

    function _snapshot(bytes32 id) internal view returns (uint256 escrow, uint256 fees, uint256 bps) {
        (,, escrow, fees,,) = market.listings(id);
        bps = market.feeBasisPoints();
    }

    function _fund(address who, uint256 amount) internal {
        vm.deal(who, who.balance + amount);
    }

    function _duration(uint256 seed) internal pure returns (uint256) {
        uint256 i = seed % 3;
        return i == 0 ? 30 days : i == 1 ? 90 days : 365 days;
    }

    function _creatorOf(bytes32 id) internal view returns (address creator) {
        (creator,,,,,) = market.listings(id);
    }

    function _priceOf(bytes32 id) internal view returns (uint256 price) {
        (, price,,,,) = market.listings(id);
    }

    function _escrowOf(bytes32 id) internal view returns (uint256 escrow) {
        (,, escrow,,,) = market.listings(id);
    }

    function _feesOf(bytes32 id) internal view returns (uint256 fees) {
        (,,, fees,,) = market.listings(id);
    }
}
