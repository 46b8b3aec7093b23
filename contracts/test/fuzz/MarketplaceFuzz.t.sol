// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {BaseTest} from "../Base.t.sol";
import {IServiceMarketplace} from "../../src/interfaces/IServiceMarketplace.sol";

/// @notice Property tests over prices, fees, durations and deposits: every payment splits exactly into
/// fee and creator share, and the contract holds exactly escrow + fees + per-task balances.
contract MarketplaceFuzzTest is BaseTest {
    bytes32 internal constant FUZZ_SEED = bytes32(uint256(0xf022));

    function _boundPrice(uint256 price) internal pure returns (uint96) {
        return uint96(bound(price, MIN_PRICE, MAX_PRICE));
    }

    function _boundFee(uint256 bps) internal pure returns (uint256) {
        return bound(bps, 0, MAX_FEE_BPS);
    }

    function _duration(uint256 index) internal pure returns (uint256) {
        uint256 i = index % 3;
        return i == 0 ? 30 days : i == 1 ? 90 days : 365 days;
    }

    function _isValidDuration(uint256 duration) internal pure returns (bool) {
        return duration == 30 days || duration == 90 days || duration == 365 days;
    }

    /// @dev Sum of everything the contract owes for the listings and buyers this suite touches.
    function _owed(bytes32 id) internal view returns (uint256) {
        return _escrow(id) + _fees(id) + _balance(id, renter) + _balance(id, secondRenter);
    }

    function _assertSplit(bytes32 id, uint256 escrowBefore, uint256 feesBefore, uint256 amount, uint256 bps)
        internal
        view
    {
        uint256 expectedFee = amount * bps / BPS;
        uint256 fee = _fees(id) - feesBefore;
        uint256 share = _escrow(id) - escrowBefore;
        assertEq(fee, expectedFee, "fee");
        assertEq(share, amount - expectedFee, "creator share");
        assertEq(fee + share, amount, "fee + share == paid");
        assertLe(fee * BPS, amount * MAX_FEE_BPS, "fee above cap");
    }

    // ─── Listing terms ────────────────────────────────────────────────────────

    function testFuzz_createListing_Price(uint256 price, uint8 modelIndex) public {
        uint96 p = uint96(bound(price, 0, type(uint96).max));
        IServiceMarketplace.RentalModel model = IServiceMarketplace.RentalModel(modelIndex % 3);
        bytes32 id = market.deriveListingId(otherCreator, FUZZ_SEED);
        if (p < MIN_PRICE) {
            vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.PriceTooLow.selector, p, MIN_PRICE));
            vm.prank(otherCreator);
            market.createListing(FUZZ_SEED, model, p, URI);
            assertEq(_creator(id), address(0));
        } else {
            vm.prank(otherCreator);
            assertEq(market.createListing(FUZZ_SEED, model, p, URI), id);
            assertEq(_price(id), p);
            assertEq(uint8(_model(id)), uint8(model));
            assertEq(_creator(id), otherCreator);
        }
    }

    function testFuzz_createListing_MetadataUriLength(uint256 length) public {
        length = bound(length, 0, 2 * MAX_URI);
        string memory uri = _uri(length);
        if (length == 0) {
            vm.expectRevert(_err(IServiceMarketplace.MetadataUriEmpty.selector));
        } else if (length > MAX_URI) {
            vm.expectRevert(
                abi.encodeWithSelector(IServiceMarketplace.MetadataUriTooLong.selector, length, MAX_URI)
            );
        }
        vm.prank(otherCreator);
        market.createListing(FUZZ_SEED, ONE_TIME, PRICE, uri);
    }

    function testFuzz_deriveListingId(address who, bytes32 seed) public view {
        assertEq(market.deriveListingId(who, seed), keccak256(abi.encodePacked(who, seed)));
    }

    // ─── Fees ─────────────────────────────────────────────────────────────────

    function testFuzz_setFeeBasisPoints(uint256 bps) public {
        if (bps > MAX_FEE_BPS) {
            vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.FeeTooHigh.selector, bps, MAX_FEE_BPS));
        } else {
            vm.expectEmit(address(market));
            emit IServiceMarketplace.FeeBasisPointsUpdated(DEFAULT_FEE_BPS, bps);
        }
        vm.prank(authority);
        market.setFeeBasisPoints(bps);
        assertEq(market.feeBasisPoints(), bps > MAX_FEE_BPS ? DEFAULT_FEE_BPS : bps);
    }

    // ─── One-time ─────────────────────────────────────────────────────────────

    function testFuzz_purchaseOneTime_SplitsExactly(uint256 price, uint256 bps) public {
        uint96 p = _boundPrice(price);
        bps = _boundFee(bps);
        _setFee(bps);
        bytes32 id = _create(otherCreator, FUZZ_SEED, ONE_TIME, p);

        vm.expectEmit(address(market));
        emit IServiceMarketplace.AccessPurchased(id, renter, ONE_TIME, p, uint256(p) * bps / BPS, 0);
        _buyOneTime(renter, id);
        _assertSplit(id, 0, 0, p, bps);
        uint256 escrowBefore = _escrow(id);
        uint256 feesBefore = _fees(id);
        _buyOneTime(secondRenter, id);
        _assertSplit(id, escrowBefore, feesBefore, p, bps);

        assertEq(address(market).balance, 2 * uint256(p));
        assertEq(address(market).balance, _owed(id));

        uint256 escrow = _escrow(id);
        vm.prank(otherCreator);
        market.withdrawEarnings(id, escrow);
        assertEq(otherCreator.balance, escrow);
        assertEq(address(market).balance, _fees(id));
    }

    function testFuzz_purchaseOneTime_RevertWhen_IncorrectPayment(uint256 price, uint256 sent) public {
        uint96 p = _boundPrice(price);
        sent = bound(sent, 0, 2 * MAX_PRICE);
        bytes32 id = _create(otherCreator, FUZZ_SEED, ONE_TIME, p);
        if (sent != p) {
            vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.IncorrectPayment.selector, sent, p));
        }
        vm.prank(renter);
        market.purchaseOneTime{value: sent}(id);
        assertEq(address(market).balance, sent == p ? p : 0);
    }

    // ─── Subscription ─────────────────────────────────────────────────────────

    function testFuzz_purchaseSubscription_AnyDuration(uint256 duration) public {
        if (!_isValidDuration(duration)) {
            vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.InvalidDuration.selector, duration));
            market.subscriptionQuote(subscription, duration);
            vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.InvalidDuration.selector, duration));
            vm.prank(renter);
            market.purchaseSubscription{value: PRICE}(subscription, duration);
            assertEq(address(market).balance, 0);
        } else {
            _buySubscription(renter, subscription, duration);
            assertEq(_expiresAt(subscription, renter), START + duration);
        }
    }

    function testFuzz_purchaseSubscription_ValidDurationsOnly(uint256 index, int256 offset) public {
        uint256 valid = _duration(index);
        // Near-misses around each valid duration.
        offset = bound(offset, -2 days, 2 days);
        uint256 duration = uint256(int256(valid) + offset);
        if (offset != 0) {
            vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.InvalidDuration.selector, duration));
        }
        uint256 value = uint256(PRICE) * valid / 30 days;
        vm.prank(renter);
        market.purchaseSubscription{value: value}(subscription, duration);
        assertEq(_valid(subscription, renter), offset == 0);
    }

    function testFuzz_purchaseSubscription_SplitsExactly(uint256 price, uint256 bps, uint256 index) public {
        uint96 p = _boundPrice(price);
        bps = _boundFee(bps);
        uint256 duration = _duration(index);
        _setFee(bps);
        bytes32 id = _create(otherCreator, FUZZ_SEED, SUBSCRIPTION, p);
        uint256 quote = uint256(p) * duration / 30 days;
        assertEq(market.subscriptionQuote(id, duration), quote);
        if (duration == 30 days) assertEq(quote, p);
        if (duration == 90 days) assertEq(quote, 3 * uint256(p));

        vm.expectEmit(address(market));
        emit IServiceMarketplace.AccessPurchased(
            id, renter, SUBSCRIPTION, quote, quote * bps / BPS, uint40(START + duration)
        );
        vm.prank(renter);
        market.purchaseSubscription{value: quote}(id, duration);

        _assertSplit(id, 0, 0, quote, bps);
        assertEq(address(market).balance, quote);
        assertEq(address(market).balance, _owed(id));
    }

    function testFuzz_purchaseSubscription_RevertWhen_IncorrectPayment(uint256 index, uint256 sent) public {
        uint256 duration = _duration(index);
        uint256 quote = market.subscriptionQuote(subscription, duration);
        sent = bound(sent, 0, 20 * uint256(PRICE));
        if (sent != quote) {
            vm.expectRevert(
                abi.encodeWithSelector(IServiceMarketplace.IncorrectPayment.selector, sent, quote)
            );
        }
        vm.prank(renter);
        market.purchaseSubscription{value: sent}(subscription, duration);
    }

    function testFuzz_subscription_ExpiryBoundary(uint256 index, uint256 elapsed) public {
        uint256 duration = _duration(index);
        _buySubscription(renter, subscription, duration);
        elapsed = bound(elapsed, 0, 3 * 365 days);
        vm.warp(START + elapsed);
        assertEq(_valid(subscription, renter), elapsed < duration);
    }

    function testFuzz_renewSubscription_RevertWhen_InvalidDuration(uint256 duration) public {
        _buySubscription(renter, subscription, 30 days);
        if (_isValidDuration(duration)) duration += 1;
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.InvalidDuration.selector, duration));
        vm.prank(renter);
        market.renewSubscription{value: PRICE}(subscription, duration);
        assertEq(_expiresAt(subscription, renter), START + 30 days);
    }

    function testFuzz_renewSubscription_ExtendsAndSplits(
        uint256 price,
        uint256 bps,
        uint256 firstIndex,
        uint256 renewIndex,
        uint256 elapsed
    ) public {
        uint96 p = _boundPrice(price);
        bps = _boundFee(bps);
        bytes32 id = _create(otherCreator, FUZZ_SEED, SUBSCRIPTION, p);
        _buySubscription(renter, id, _duration(firstIndex));
        uint256 expiresAt = _expiresAt(id, renter);

        vm.warp(START + bound(elapsed, 0, 800 days));
        _setFee(bps);
        uint256 duration = _duration(renewIndex);
        // Extends from the later of now and the current expiry.
        _renewAndCheck(
            id, p, bps, duration, (expiresAt > block.timestamp ? expiresAt : block.timestamp) + duration
        );
    }

    function _renewAndCheck(bytes32 id, uint256 p, uint256 bps, uint256 duration, uint256 until) internal {
        uint256 quote = p * duration / 30 days;
        uint256 escrowBefore = _escrow(id);
        uint256 feesBefore = _fees(id);

        vm.expectEmit(address(market));
        emit IServiceMarketplace.SubscriptionRenewed(id, renter, quote, quote * bps / BPS, uint40(until));
        vm.prank(renter);
        market.renewSubscription{value: quote}(id, duration);

        assertEq(_expiresAt(id, renter), until);
        assertTrue(_valid(id, renter));
        _assertSplit(id, escrowBefore, feesBefore, quote, bps);
        assertEq(address(market).balance, _owed(id));
    }

    // ─── Per-query ────────────────────────────────────────────────────────────

    function testFuzz_purchasePerQuery_Deposit(uint256 price, uint256 deposit) public {
        uint96 p = _boundPrice(price);
        deposit = bound(deposit, 0, 10 * MAX_PRICE);
        bytes32 id = _create(otherCreator, FUZZ_SEED, PER_QUERY, p);
        if (deposit < p) {
            vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.DepositTooLow.selector, deposit, p));
        } else {
            vm.expectEmit(address(market));
            emit IServiceMarketplace.PerQueryPurchased(id, renter, deposit, p);
        }
        vm.prank(renter);
        market.purchasePerQuery{value: deposit}(id, p);

        uint256 held = deposit < p ? 0 : deposit;
        assertEq(_balance(id, renter), held);
        assertEq(_valid(id, renter), deposit >= p);
        // No split until a run is consumed.
        assertEq(_escrow(id), 0);
        assertEq(_fees(id), 0);
        assertEq(address(market).balance, held);
    }

    function testFuzz_topUpBalance_Deposit(uint256 price, uint256 first, uint256 topUp) public {
        uint96 p = _boundPrice(price);
        first = bound(first, p, 10 * MAX_PRICE);
        topUp = bound(topUp, 0, 10 * MAX_PRICE);
        bytes32 id = _create(otherCreator, FUZZ_SEED, PER_QUERY, p);
        _buyPerQuery(renter, id, first);

        if (topUp < p) {
            vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.DepositTooLow.selector, topUp, p));
        } else {
            vm.expectEmit(address(market));
            emit IServiceMarketplace.BalanceToppedUp(id, renter, topUp, first + topUp, p);
        }
        vm.prank(renter);
        market.topUpBalance{value: topUp}(id, p);

        uint256 expected = topUp < p ? first : first + topUp;
        assertEq(_balance(id, renter), expected);
        assertEq(address(market).balance, expected);
        assertEq(_escrow(id) + _fees(id), 0);
    }

    function testFuzz_consumeQuery_SplitsExactly(uint256 price, uint256 bps, uint256 runs, uint256 extra)
        public
    {
        uint96 p = _boundPrice(price);
        bps = _boundFee(bps);
        runs = bound(runs, 1, 20);
        extra = bound(extra, 0, uint256(p) - 1);
        _setFee(bps);
        bytes32 id = _create(otherCreator, FUZZ_SEED, PER_QUERY, p);
        uint256 deposit = uint256(p) * runs + extra;
        _buyPerQuery(renter, id, deposit);

        uint256 fee = uint256(p) * bps / BPS;
        for (uint256 i; i < runs; ++i) {
            assertTrue(_valid(id, renter));
            uint256 remaining = deposit - uint256(p) * (i + 1);
            vm.expectEmit(address(market));
            emit IServiceMarketplace.QueryConsumed(id, renter, 1000 + i, p, fee, remaining, true);
            _consume(id, renter, 1000 + i);
            assertEq(address(market).balance, _owed(id));
        }

        assertEq(_balance(id, renter), extra);
        assertFalse(_valid(id, renter));
        // Each run splits on its own: runs * fee + runs * share == runs * price.
        assertEq(_fees(id), fee * runs);
        assertEq(_escrow(id), (p - fee) * runs);
        assertEq(_fees(id) + _escrow(id), uint256(p) * runs);
        assertEq(address(market).balance, deposit);

        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.InsufficientBalance.selector, extra, p));
        vm.prank(authority);
        market.consumeQuery(id, renter, 5000, p, true);
    }

    /// @dev A deposit agrees to the listing's price only when it is at most what the renter accepted.
    function testFuzz_purchasePerQuery_MaxPrice(uint256 price, uint256 maxPrice) public {
        uint96 p = _boundPrice(price);
        maxPrice = bound(maxPrice, 0, 2 * MAX_PRICE);
        bytes32 id = _create(otherCreator, FUZZ_SEED, PER_QUERY, p);
        if (p > maxPrice) {
            vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.PriceAboveLimit.selector, p, maxPrice));
        }
        vm.prank(renter);
        market.purchasePerQuery{value: p}(id, maxPrice);
        assertEq(_agreedPrice(id, renter), p > maxPrice ? 0 : p);
        assertEq(address(market).balance, p > maxPrice ? 0 : p);
    }

    /// @dev Finding "per-task price lock": over any sequence of price changes and deposits, a run debits the
    /// lower of the price the renter last agreed to and the current price, never more than the agreed one.
    function testFuzz_consumeQuery_NeverAboveAgreedPrice(
        uint256 price,
        uint256[6] memory newPrices,
        uint256 topUpMask,
        uint256 deposit
    ) public {
        uint96 agreed = _boundPrice(price);
        bytes32 id = _create(otherCreator, FUZZ_SEED, PER_QUERY, agreed);
        _buyPerQuery(renter, id, bound(deposit, agreed, 100 * MAX_PRICE));

        for (uint256 i; i < newPrices.length; ++i) {
            uint96 current = _boundPrice(newPrices[i]);
            vm.prank(otherCreator);
            market.updateListing(id, current, NEW_URI);
            if ((topUpMask >> i) & 1 == 1) {
                _topUp(renter, id, current);
                agreed = current;
            }
            assertEq(_agreedPrice(id, renter), agreed, "agreed price recorded at the last deposit");

            uint256 expected = agreed < current ? agreed : current;
            uint256 before = _balance(id, renter);
            assertEq(_valid(id, renter), before >= expected, "valid iff the next debit is covered");
            if (before < expected) continue;
            _consume(id, renter, i);
            uint256 debited = before - _balance(id, renter);
            assertLe(debited, agreed, "debit above the agreed price");
            assertEq(debited, expected, "debit is min(agreed, current)");
        }
        assertEq(address(market).balance, _owed(id));
    }

    /// @dev A debit charges the lowest of the agreed price, the current price and the run's admission price
    /// (`maxPrice`), splits it exactly, and refuses a balance short of that very price, naming it.
    function testFuzz_consumeQuery_ChargesTheLowestOfAgreedCurrentAndMaxPrice(
        uint256 agreedSeed,
        uint256 currentSeed,
        uint256 maxPrice,
        uint256 deposit,
        uint256 bps
    ) public {
        uint96 agreed = _boundPrice(agreedSeed);
        uint96 current = _boundPrice(currentSeed);
        maxPrice = bound(maxPrice, 0, 2 * MAX_PRICE);
        deposit = bound(deposit, agreed, 2 * uint256(agreed));
        _setFee(_boundFee(bps));
        bytes32 id = _create(otherCreator, FUZZ_SEED, PER_QUERY, agreed);
        _buyPerQuery(renter, id, deposit);
        vm.prank(otherCreator);
        market.updateListing(id, current, NEW_URI);
        // Spend part of the deposit first, so some balances fall short of the next debit.
        _consume(id, renter, 1, deposit / 2);
        uint256 balance = _balance(id, renter);

        uint256 settled = _escrow(id) + _fees(id);
        uint256 expected = agreed < current ? agreed : current;
        if (maxPrice < expected) expected = maxPrice;
        if (balance < expected) {
            vm.expectRevert(
                abi.encodeWithSelector(IServiceMarketplace.InsufficientBalance.selector, balance, expected)
            );
        } else {
            vm.expectEmit(address(market));
            emit IServiceMarketplace.QueryConsumed(
                id, renter, 2, expected, _fee(expected), balance - expected, true
            );
        }
        vm.prank(operator);
        market.consumeQuery(id, renter, 2, maxPrice, true);

        uint256 debited = balance >= expected ? expected : 0;
        assertEq(_balance(id, renter), balance - debited, "balance less the debit");
        assertEq(_escrow(id) + _fees(id) - settled, debited, "fee + share == debit");
        assertEq(market.isRunRecorded(2), balance >= expected, "run settled iff debited");
        assertEq(address(market).balance, _owed(id));
    }

    function testFuzz_consumeQuery_RunIdSettlesOnce(uint256 runId, uint256 otherRunId) public {
        vm.assume(runId != otherRunId);
        _buyPerQuery(renter, perQuery, PRICE * 3);
        _consume(perQuery, renter, runId);
        assertTrue(market.isRunRecorded(runId));
        assertFalse(market.isRunRecorded(otherRunId));

        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.RunAlreadyRecorded.selector, runId));
        vm.prank(authority);
        market.consumeQuery(perQuery, renter, runId, PRICE, true);
        assertEq(_balance(perQuery, renter), PRICE * 2);

        _consume(perQuery, renter, otherRunId);
        assertEq(_balance(perQuery, renter), PRICE);
    }

    function testFuzz_reclaimBalance_ReturnsUnspent(uint256 price, uint256 runs, uint256 extra) public {
        uint96 p = _boundPrice(price);
        runs = bound(runs, 0, 10);
        extra = bound(extra, 1, MAX_PRICE);
        bytes32 id = _create(otherCreator, FUZZ_SEED, PER_QUERY, p);
        uint256 deposit = uint256(p) * runs + extra;
        if (deposit < p) deposit = p;
        _buyPerQuery(renter, id, deposit);
        uint256 consumed;
        for (uint256 i; i < runs && _balance(id, renter) >= p; ++i) {
            _consume(id, renter, i);
            consumed += p;
        }
        vm.prank(otherCreator);
        market.revokePerQueryAccess(id, renter);

        uint256 before = renter.balance;
        vm.prank(renter);
        market.reclaimBalance(id);
        assertEq(renter.balance - before, deposit - consumed);
        assertEq(_escrow(id) + _fees(id), consumed);
        assertEq(address(market).balance, consumed);
    }

    // ─── Withdrawals ──────────────────────────────────────────────────────────

    function testFuzz_withdrawEarnings_Amount(uint256 price, uint256 amount) public {
        uint96 p = _boundPrice(price);
        bytes32 id = _create(otherCreator, FUZZ_SEED, ONE_TIME, p);
        _buyOneTime(renter, id);
        uint256 escrow = _escrow(id);
        amount = bound(amount, 0, 2 * escrow);

        if (amount == 0) {
            vm.expectRevert(_err(IServiceMarketplace.NothingToWithdraw.selector));
        } else if (amount > escrow) {
            vm.expectRevert(
                abi.encodeWithSelector(IServiceMarketplace.WithdrawalExceedsBalance.selector, amount, escrow)
            );
        }
        vm.prank(otherCreator);
        market.withdrawEarnings(id, amount);

        uint256 paid = amount == 0 || amount > escrow ? 0 : amount;
        assertEq(otherCreator.balance, paid);
        assertEq(_escrow(id), escrow - paid);
        assertEq(address(market).balance, p - paid);
        assertEq(address(market).balance, _owed(id));
    }
}
