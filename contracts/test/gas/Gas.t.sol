// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {Test} from "forge-std/Test.sol";
import {ServiceMarketplace} from "../../src/ServiceMarketplace.sol";
import {IServiceMarketplace} from "../../src/interfaces/IServiceMarketplace.sol";

/// @notice Steady-state cost of each hot operation as a transaction of its own (run with `--isolate`,
/// so each figure includes the 21k base and calldata): escrow, fees and run bitmap already non-zero.
contract GasTest is Test {
    ServiceMarketplace internal market;
    address internal authority = makeAddr("authority");
    address internal operator = makeAddr("operator");
    address internal creator = makeAddr("creator");
    address internal renter = makeAddr("renter");
    address internal secondRenter = makeAddr("secondRenter");
    address internal newRenter = makeAddr("newRenter");
    string internal constant URI = "ipfs://bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy";
    uint96 internal constant PRICE = 0.01 ether;
    uint256 internal constant LARGEST_BATCH = 50;
    bytes32 internal constant RECEIPTS_ROOT = keccak256("receipts root");
    uint256 internal constant ANCHORED_LISTINGS = 10;

    bytes32 internal oneTime;
    bytes32 internal subscription;
    bytes32 internal perQuery;
    /// @dev Renters with a per-task balance each, so every debit of a batch reads and writes its own record.
    address[] internal batchRenters;

    function setUp() public {
        market =
            new ServiceMarketplace(authority, operator, makeAddr("feeRecipient"), makeAddr("receiptsSigner"));
        vm.deal(renter, 100 ether);
        vm.deal(secondRenter, 100 ether);
        vm.deal(newRenter, 100 ether);
        vm.startPrank(creator);
        market.createListing(bytes32(uint256(9)), IServiceMarketplace.RentalModel.OneTime, PRICE, URI);
        oneTime =
            market.createListing(bytes32(uint256(1)), IServiceMarketplace.RentalModel.OneTime, PRICE, URI);
        subscription = market.createListing(
            bytes32(uint256(2)), IServiceMarketplace.RentalModel.Subscription, PRICE, URI
        );
        perQuery =
            market.createListing(bytes32(uint256(3)), IServiceMarketplace.RentalModel.PerQuery, PRICE, URI);
        vm.stopPrank();
        vm.startPrank(secondRenter);
        market.purchaseOneTime{value: PRICE}(oneTime);
        market.purchaseSubscription{value: PRICE}(subscription, 30 days);
        market.purchasePerQuery{value: 10 * PRICE}(perQuery, PRICE);
        vm.stopPrank();
        vm.prank(operator);
        market.consumeQuery(perQuery, secondRenter, 1, PRICE, true);
        vm.startPrank(renter);
        market.purchaseSubscription{value: PRICE}(subscription, 30 days);
        market.purchasePerQuery{value: 10 * PRICE}(perQuery, PRICE);
        vm.stopPrank();
        for (uint256 i; i < LARGEST_BATCH; ++i) {
            address batchRenter = makeAddr(string.concat("batchRenter", vm.toString(i)));
            vm.deal(batchRenter, 100 ether);
            vm.prank(batchRenter);
            market.purchasePerQuery{value: 10 * PRICE}(perQuery, PRICE);
            batchRenters.push(batchRenter);
        }
    }

    function test_gas_createListing() public {
        vm.prank(creator);
        market.createListing(bytes32(uint256(4)), IServiceMarketplace.RentalModel.OneTime, PRICE, URI);
        assertLe(vm.snapshotGasLastCall("createListing"), 80_000);
    }

    function test_gas_purchaseOneTime() public {
        vm.prank(newRenter);
        market.purchaseOneTime{value: PRICE}(oneTime);
        assertLe(vm.snapshotGasLastCall("purchaseOneTime"), 75_000);
    }

    function test_gas_purchaseSubscription() public {
        vm.prank(newRenter);
        market.purchaseSubscription{value: PRICE}(subscription, 30 days);
        assertLe(vm.snapshotGasLastCall("purchaseSubscription"), 75_000);
    }

    function test_gas_purchasePerQuery() public {
        vm.prank(newRenter);
        market.purchasePerQuery{value: 10 * PRICE}(perQuery, PRICE);
        assertLe(vm.snapshotGasLastCall("purchasePerQuery"), 80_000);
    }

    function test_gas_renewSubscription() public {
        vm.prank(renter);
        market.renewSubscription{value: PRICE}(subscription, 30 days);
        assertLe(vm.snapshotGasLastCall("renewSubscription"), 50_000);
    }

    function test_gas_topUpBalance() public {
        vm.prank(renter);
        market.topUpBalance{value: PRICE}(perQuery, PRICE);
        assertLe(vm.snapshotGasLastCall("topUpBalance"), 40_000);
    }

    /// @dev Debited by the operator, as the service does: its address shares the slot of fee and pause.
    function test_gas_consumeQuery() public {
        vm.prank(operator);
        market.consumeQuery(perQuery, renter, 2, PRICE, true);
        assertLe(vm.snapshotGasLastCall("consumeQuery"), 50_000);
    }

    /// @dev A batch as settlement sends it: `size` debits of `size` renters, with sequential run ids (2 on:
    /// run 1 made their bitmap word non-zero), each at most the price it was admitted at and carrying its
    /// run's outcome (succeeded, as most are). Snapshots the transaction and its amortised cost per debit.
    function _consumeQueries(uint256 size) internal returns (uint256 perDebit) {
        IServiceMarketplace.Debit[] memory debits = new IServiceMarketplace.Debit[](size);
        for (uint256 i; i < size; ++i) {
            debits[i] = IServiceMarketplace.Debit(perQuery, batchRenters[i], 2 + i, PRICE, true);
        }
        vm.prank(operator);
        market.consumeQueries(debits);
        string memory name = string.concat("consumeQueries_", vm.toString(size));
        perDebit = vm.snapshotGasLastCall(name) / size;
        vm.snapshotValue(string.concat(name, "_perDebit"), perDebit);
    }

    function test_gas_consumeQueries_1() public {
        assertLe(_consumeQueries(1), 50_000);
    }

    function test_gas_consumeQueries_10() public {
        assertLe(_consumeQueries(10), 17_000);
    }

    function test_gas_consumeQueries_50() public {
        // The run's outcome costs about 580 a debit: its calldata word, its event's data word, its read.
        assertLe(_consumeQueries(50), 14_100);
    }

    /// @dev The counts of `runs` uncharged runs as settlement sends them: one `RunCount` per listing, the runs
    /// spread evenly over min(runs, 10) listings, a tenth of each listing's runs failed (rounded down). The
    /// listings need not exist: counts are not checked against them.
    function _runCounts(uint256 runs) internal view returns (IServiceMarketplace.RunCount[] memory counts) {
        uint256 listings = runs < ANCHORED_LISTINGS ? runs : ANCHORED_LISTINGS;
        counts = new IServiceMarketplace.RunCount[](listings);
        for (uint256 i; i < listings; ++i) {
            bytes32 listingId = market.deriveListingId(creator, bytes32(100 + i));
            uint256 perListing = runs / listings;
            counts[i] = IServiceMarketplace.RunCount(listingId, uint32(perListing), uint32(perListing / 10));
        }
    }

    /// @dev An anchor alone (`settle` with no debits) of a batch of `size` runs' receipts, counting them as
    /// `_runCounts` does. Snapshots the transaction and its amortised cost per run.
    function _anchor(uint256 size) internal returns (uint256 perRun) {
        IServiceMarketplace.RunCount[] memory counts = _runCounts(size);
        vm.prank(operator);
        market.settle(new IServiceMarketplace.Debit[](0), RECEIPTS_ROOT, counts);
        string memory name = string.concat("anchor_", vm.toString(size));
        perRun = vm.snapshotGasLastCall(name) / size;
        vm.snapshotValue(string.concat(name, "_perRun"), perRun);
    }

    function test_gas_anchor_1() public {
        // The root's first write (22,100) is most of it; the rest is the 21k base, calldata and the event.
        assertLe(_anchor(1), 52_000);
    }

    function test_gas_anchor_10() public {
        assertLe(_anchor(10), 7300);
    }

    function test_gas_anchor_100() public {
        assertLe(_anchor(100), 1000);
    }

    /// @dev `size` debits as `_consumeQueries` sends them, and in the same transaction the anchor of their
    /// batch's receipts, whose one count holds the batch's uncharged runs: `size` runs of the one-time
    /// listing. Snapshots the transaction and its amortised cost per debit.
    function _settle(uint256 size) internal returns (uint256 perDebit) {
        IServiceMarketplace.Debit[] memory debits = new IServiceMarketplace.Debit[](size);
        for (uint256 i; i < size; ++i) {
            debits[i] = IServiceMarketplace.Debit(perQuery, batchRenters[i], 2 + i, PRICE, true);
        }
        IServiceMarketplace.RunCount[] memory counts = new IServiceMarketplace.RunCount[](1);
        counts[0] = IServiceMarketplace.RunCount(oneTime, uint32(size), 0);
        vm.prank(operator);
        market.settle(debits, RECEIPTS_ROOT, counts);
        string memory name = string.concat("settle_", vm.toString(size));
        perDebit = vm.snapshotGasLastCall(name) / size;
        vm.snapshotValue(string.concat(name, "_perDebit"), perDebit);
    }

    function test_gas_settle_10() public {
        assertLe(_settle(10), 19_800);
    }

    function test_gas_settle_50() public {
        // The anchor adds about 27,500 to the batch's debits (`consumeQueries_50`): its root's write and event.
        assertLe(_settle(50), 14_700);
    }

    function test_gas_withdrawEarnings() public {
        (,, uint112 escrow,,,) = market.listings(oneTime);
        vm.prank(creator);
        market.withdrawEarnings(oneTime, escrow);
        assertLe(vm.snapshotGasLastCall("withdrawEarnings"), 40_000);
    }
}
