// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {BaseTest} from "./Base.t.sol";
import {IServiceMarketplace} from "../src/interfaces/IServiceMarketplace.sol";

/// @notice Prepaid per-task balances: deposits, top-ups, consumption, revocation, reclaims.
contract PerQueryTest is BaseTest {
    // ─── purchasePerQuery ─────────────────────────────────────────────────────

    function test_purchasePerQuery_OpensBalanceAndEmits() public {
        uint256 deposit = PRICE * 5 + 3;
        vm.expectEmit(address(market));
        emit IServiceMarketplace.PerQueryPurchased(perQuery, renter, deposit, PRICE);
        _buyPerQuery(renter, perQuery, deposit);

        (uint96 balance, uint96 agreedPrice, uint40 purchasedAt, bool isRevoked,) =
            market.perQueryBalances(perQuery, renter);
        assertEq(balance, deposit);
        assertEq(agreedPrice, PRICE);
        assertEq(purchasedAt, START);
        assertFalse(isRevoked);
        // The fee/escrow split happens at consumption, not deposit.
        assertEq(_escrow(perQuery), 0);
        assertEq(_fees(perQuery), 0);
        assertEq(address(market).balance, deposit);
        assertTrue(_valid(perQuery, renter));
    }

    function test_purchasePerQuery_AcceptsExactlyOnePrice() public {
        _buyPerQuery(renter, perQuery, PRICE);
        assertEq(_balance(perQuery, renter), PRICE);
        assertTrue(_valid(perQuery, renter));
    }

    function test_purchasePerQuery_RevertWhen_DepositTooLow() public {
        vm.startPrank(renter);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.DepositTooLow.selector, PRICE - 1, PRICE));
        market.purchasePerQuery{value: PRICE - 1}(perQuery, PRICE);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.DepositTooLow.selector, 0, PRICE));
        market.purchasePerQuery(perQuery, PRICE);
        vm.stopPrank();
    }

    function test_purchasePerQuery_RevertWhen_PriceAboveLimit() public {
        vm.expectRevert(
            abi.encodeWithSelector(IServiceMarketplace.PriceAboveLimit.selector, PRICE, PRICE - 1)
        );
        vm.prank(renter);
        market.purchasePerQuery{value: PRICE * 10}(perQuery, PRICE - 1);
        assertEq(address(market).balance, 0);
    }

    function test_purchasePerQuery_AgreesToTheListingPriceBelowTheLimit() public {
        vm.prank(renter);
        market.purchasePerQuery{value: PRICE * 2}(perQuery, PRICE * 5);
        assertEq(_agreedPrice(perQuery, renter), PRICE);
    }

    function test_purchasePerQuery_RevertWhen_ListingNotFound() public {
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.ListingNotFound.selector, UNKNOWN));
        vm.prank(renter);
        market.purchasePerQuery{value: PRICE}(UNKNOWN, PRICE);
    }

    function test_purchasePerQuery_RevertWhen_ListingNotActive() public {
        _pauseListing(perQuery);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.ListingNotActive.selector, perQuery));
        vm.prank(renter);
        market.purchasePerQuery{value: PRICE}(perQuery, PRICE);
    }

    function test_purchasePerQuery_RevertWhen_InvalidAccessType() public {
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.InvalidAccessType.selector, ONE_TIME));
        vm.prank(renter);
        market.purchasePerQuery{value: PRICE}(oneTime, PRICE);
    }

    function test_purchasePerQuery_RevertWhen_CredentialAlreadyExists() public {
        _buyPerQuery(renter, perQuery, PRICE);
        vm.expectRevert(
            abi.encodeWithSelector(IServiceMarketplace.CredentialAlreadyExists.selector, perQuery, renter)
        );
        vm.prank(renter);
        market.purchasePerQuery{value: PRICE}(perQuery, PRICE);
    }

    function test_purchasePerQuery_RevertWhen_CredentialRevoked() public {
        _buyPerQuery(renter, perQuery, PRICE);
        vm.prank(creator);
        market.revokePerQueryAccess(perQuery, renter);
        vm.expectRevert(
            abi.encodeWithSelector(IServiceMarketplace.CredentialRevoked.selector, perQuery, renter)
        );
        vm.prank(renter);
        market.purchasePerQuery{value: PRICE}(perQuery, PRICE);
    }

    function test_purchasePerQuery_RevertWhen_ProtocolPaused() public {
        _pauseProtocol();
        vm.expectRevert(_err(IServiceMarketplace.ProtocolPaused.selector));
        vm.prank(renter);
        market.purchasePerQuery{value: PRICE}(perQuery, PRICE);
    }

    // ─── topUpBalance ─────────────────────────────────────────────────────────

    function test_topUpBalance_AddsAndEmits() public {
        _buyPerQuery(renter, perQuery, PRICE);
        vm.expectEmit(address(market));
        emit IServiceMarketplace.BalanceToppedUp(perQuery, renter, PRICE * 2, PRICE * 3, PRICE);
        _topUp(renter, perQuery, PRICE * 2);

        (uint96 balance,, uint40 purchasedAt,,) = market.perQueryBalances(perQuery, renter);
        assertEq(balance, PRICE * 3);
        assertEq(purchasedAt, START);
        assertEq(_escrow(perQuery), 0);
        assertEq(_fees(perQuery), 0);
        assertEq(address(market).balance, PRICE * 3);
    }

    function test_topUpBalance_RestoresValidityAfterLowBalance() public {
        _buyPerQuery(renter, perQuery, PRICE + PRICE / 2);
        _consume(perQuery, renter, 1);
        assertEq(_balance(perQuery, renter), PRICE / 2);
        assertFalse(_valid(perQuery, renter));
        IServiceMarketplace.AccessState memory s = market.getAccessState(perQuery, renter);
        assertTrue(s.hasCredential);
        assertFalse(s.isValid);

        _topUp(renter, perQuery, PRICE);
        assertEq(_balance(perQuery, renter), PRICE + PRICE / 2);
        assertTrue(_valid(perQuery, renter));
    }

    function test_topUpBalance_RevertWhen_DepositTooLow() public {
        _buyPerQuery(renter, perQuery, PRICE);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.DepositTooLow.selector, PRICE - 1, PRICE));
        vm.prank(renter);
        market.topUpBalance{value: PRICE - 1}(perQuery, PRICE);
    }

    function test_topUpBalance_RevertWhen_PriceAboveLimit() public {
        _buyPerQuery(renter, perQuery, PRICE);
        vm.prank(creator);
        market.updateListing(perQuery, PRICE * 2, NEW_URI);
        vm.expectRevert(
            abi.encodeWithSelector(IServiceMarketplace.PriceAboveLimit.selector, PRICE * 2, PRICE)
        );
        vm.prank(renter);
        market.topUpBalance{value: PRICE * 10}(perQuery, PRICE);
        assertEq(_balance(perQuery, renter), PRICE);
        assertEq(_agreedPrice(perQuery, renter), PRICE);
    }

    function test_topUpBalance_RevertWhen_CredentialNotFound() public {
        vm.expectRevert(
            abi.encodeWithSelector(IServiceMarketplace.CredentialNotFound.selector, perQuery, renter)
        );
        vm.prank(renter);
        market.topUpBalance{value: PRICE}(perQuery, PRICE);
    }

    function test_topUpBalance_RevertWhen_CredentialRevoked() public {
        _buyPerQuery(renter, perQuery, PRICE);
        vm.prank(creator);
        market.revokePerQueryAccess(perQuery, renter);
        vm.expectRevert(
            abi.encodeWithSelector(IServiceMarketplace.CredentialRevoked.selector, perQuery, renter)
        );
        vm.prank(renter);
        market.topUpBalance{value: PRICE}(perQuery, PRICE);
    }

    function test_topUpBalance_RevertWhen_ListingNotActive() public {
        _buyPerQuery(renter, perQuery, PRICE);
        _pauseListing(perQuery);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.ListingNotActive.selector, perQuery));
        vm.prank(renter);
        market.topUpBalance{value: PRICE}(perQuery, PRICE);
    }

    function test_topUpBalance_RevertWhen_ListingNotActive_Closed() public {
        _buyPerQuery(renter, perQuery, PRICE);
        _close(perQuery);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.ListingNotActive.selector, perQuery));
        vm.prank(renter);
        market.topUpBalance{value: PRICE}(perQuery, PRICE);
    }

    function test_topUpBalance_RevertWhen_ListingNotFound() public {
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.ListingNotFound.selector, UNKNOWN));
        vm.prank(renter);
        market.topUpBalance{value: PRICE}(UNKNOWN, PRICE);
    }

    function test_topUpBalance_RevertWhen_InvalidAccessType() public {
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.InvalidAccessType.selector, SUBSCRIPTION));
        vm.prank(renter);
        market.topUpBalance{value: PRICE}(subscription, PRICE);
    }

    function test_topUpBalance_RevertWhen_ProtocolPaused() public {
        _buyPerQuery(renter, perQuery, PRICE);
        _pauseProtocol();
        vm.expectRevert(_err(IServiceMarketplace.ProtocolPaused.selector));
        vm.prank(renter);
        market.topUpBalance{value: PRICE}(perQuery, PRICE);
    }

    // ─── consumeQuery ─────────────────────────────────────────────────────────

    function test_consumeQuery_DebitsSplitsAndEmits() public {
        _buyPerQuery(renter, perQuery, PRICE * 3);
        uint256 fee = PRICE * DEFAULT_FEE_BPS / BPS;

        vm.expectEmit(address(market));
        emit IServiceMarketplace.QueryConsumed(perQuery, renter, 42, PRICE, fee, PRICE * 2, true);
        _consume(perQuery, renter, 42);

        assertEq(_balance(perQuery, renter), PRICE * 2);
        assertEq(_fees(perQuery), fee);
        assertEq(_escrow(perQuery), PRICE - fee);
        assertEq(_fees(perQuery) + _escrow(perQuery), PRICE);
        assertTrue(market.isRunRecorded(42));
        assertFalse(market.isRunRecorded(43));
        assertEq(address(market).balance, _balance(perQuery, renter) + _escrow(perQuery) + _fees(perQuery));
    }

    function test_consumeQuery_FailedRun_ChargedAndEmitsItsOutcome() public {
        _buyPerQuery(renter, perQuery, PRICE * 3);
        uint256 fee = PRICE * DEFAULT_FEE_BPS / BPS;

        vm.expectEmit(address(market));
        emit IServiceMarketplace.QueryConsumed(perQuery, renter, 42, PRICE, fee, PRICE * 2, false);
        vm.prank(operator);
        market.consumeQuery(perQuery, renter, 42, PRICE, false);

        vm.expectEmit(address(market));
        emit IServiceMarketplace.QueryConsumed(perQuery, renter, 43, PRICE, fee, PRICE, true);
        vm.prank(operator);
        market.consumeQuery(perQuery, renter, 43, PRICE, true);

        // A failed run that reached its renter costs what a succeeded one does, and settles its run id.
        assertEq(_balance(perQuery, renter), PRICE);
        assertEq(_fees(perQuery), fee * 2);
        assertTrue(market.isRunRecorded(42));
    }

    function test_consumeQuery_DrainsToInvalid() public {
        _buyPerQuery(renter, perQuery, PRICE * 2);
        _consume(perQuery, renter, 1);
        assertTrue(_valid(perQuery, renter));
        _consume(perQuery, renter, 2);
        assertEq(_balance(perQuery, renter), 0);
        assertFalse(_valid(perQuery, renter));
        assertEq(_escrow(perQuery) + _fees(perQuery), PRICE * 2);

        _topUp(renter, perQuery, PRICE);
        assertTrue(_valid(perQuery, renter));
    }

    function test_consumeQuery_ChargesAgreedPriceUntilNextDeposit() public {
        _buyPerQuery(renter, perQuery, PRICE * 10);
        vm.prank(creator);
        market.updateListing(perQuery, PRICE * 4, NEW_URI);
        uint256 fee = PRICE * DEFAULT_FEE_BPS / BPS;

        // The renter agreed to PRICE: the raise does not reach the balance.
        vm.expectEmit(address(market));
        emit IServiceMarketplace.QueryConsumed(perQuery, renter, 7, PRICE, fee, PRICE * 9, true);
        _consume(perQuery, renter, 7);
        assertTrue(_valid(perQuery, renter));

        // A top-up agrees to the new price, which the next run pays.
        _topUp(renter, perQuery, PRICE * 4);
        assertEq(_agreedPrice(perQuery, renter), PRICE * 4);
        fee = PRICE * 4 * DEFAULT_FEE_BPS / BPS;
        vm.expectEmit(address(market));
        emit IServiceMarketplace.QueryConsumed(perQuery, renter, 8, PRICE * 4, fee, PRICE * 9, true);
        _consume(perQuery, renter, 8);

        // A price above the remaining balance, once agreed to, makes the credential invalid.
        vm.prank(creator);
        market.updateListing(perQuery, PRICE * 7, NEW_URI);
        _topUp(renter, perQuery, PRICE * 7);
        _consume(perQuery, renter, 9);
        _consume(perQuery, renter, 10);
        assertEq(_balance(perQuery, renter), PRICE * 2);
        assertFalse(_valid(perQuery, renter));
    }

    function test_consumeQuery_PriceCutAppliesAtOnce() public {
        uint96 cut = PRICE / 4;
        _buyPerQuery(renter, perQuery, PRICE * 10);
        vm.prank(creator);
        market.updateListing(perQuery, cut, NEW_URI);
        uint256 fee = cut * DEFAULT_FEE_BPS / BPS;

        vm.expectEmit(address(market));
        emit IServiceMarketplace.QueryConsumed(perQuery, renter, 7, cut, fee, PRICE * 10 - cut, true);
        _consume(perQuery, renter, 7);
        // The cut is no new agreement: raising back to PRICE still debits no more than PRICE.
        assertEq(_agreedPrice(perQuery, renter), PRICE);
        vm.prank(creator);
        market.updateListing(perQuery, PRICE * 3, NEW_URI);
        _consume(perQuery, renter, 8);
        assertEq(_balance(perQuery, renter), PRICE * 9 - cut);
    }

    /// @dev A run admitted at a cut price and debited after the price went back up pays its admission price,
    /// though the renter agreed to more.
    function test_consumeQuery_PriceRaisedAfterAdmission_ChargesMaxPrice() public {
        _buyPerQuery(renter, perQuery, PRICE * 10);
        vm.prank(creator);
        market.updateListing(perQuery, PRICE / 2, NEW_URI);
        uint256 admittedAt = _nextDebit(perQuery, renter);
        assertEq(admittedAt, PRICE / 2);
        vm.prank(creator);
        market.updateListing(perQuery, PRICE * 3, NEW_URI);

        vm.expectEmit(address(market));
        emit IServiceMarketplace.QueryConsumed(
            perQuery, renter, 7, PRICE / 2, _fee(PRICE / 2), PRICE * 19 / 2, true
        );
        _consume(perQuery, renter, 7, admittedAt);
        assertEq(_balance(perQuery, renter), PRICE * 19 / 2);
        assertEq(_escrow(perQuery) + _fees(perQuery), PRICE / 2);
    }

    function test_consumeQuery_PriceLoweredAfterAdmission_ChargesTheLowerPrice() public {
        _buyPerQuery(renter, perQuery, PRICE * 10);
        uint256 admittedAt = _nextDebit(perQuery, renter);
        vm.prank(creator);
        market.updateListing(perQuery, PRICE / 4, NEW_URI);

        vm.expectEmit(address(market));
        emit IServiceMarketplace.QueryConsumed(
            perQuery, renter, 7, PRICE / 4, _fee(PRICE / 4), PRICE * 39 / 4, true
        );
        _consume(perQuery, renter, 7, admittedAt);
        assertEq(_balance(perQuery, renter), PRICE * 39 / 4);
    }

    /// @dev `maxPrice` only lowers a debit: above the agreed price (and the current one), the agreed applies.
    function test_consumeQuery_AgreedPriceBelowMaxAndCurrentPrice_ChargesTheAgreedPrice() public {
        _buyPerQuery(renter, perQuery, PRICE * 10);
        vm.prank(creator);
        market.updateListing(perQuery, PRICE * 3, NEW_URI);

        vm.expectEmit(address(market));
        emit IServiceMarketplace.QueryConsumed(perQuery, renter, 7, PRICE, _fee(PRICE), PRICE * 9, true);
        _consume(perQuery, renter, 7, PRICE * 2);
        _consume(perQuery, renter, 8, type(uint256).max);
        assertEq(_balance(perQuery, renter), PRICE * 8);
    }

    /// @dev A short balance is measured against the price the debit would charge, `maxPrice` included, and
    /// the refusal names that price.
    function test_consumeQuery_RevertWhen_InsufficientBalance_NamesTheChargedPrice() public {
        _buyPerQuery(renter, perQuery, PRICE + PRICE / 2);
        _consume(perQuery, renter, 1);

        vm.expectRevert(
            abi.encodeWithSelector(IServiceMarketplace.InsufficientBalance.selector, PRICE / 2, PRICE / 2 + 1)
        );
        vm.prank(operator);
        market.consumeQuery(perQuery, renter, 2, PRICE / 2 + 1, true);

        _consume(perQuery, renter, 2, PRICE / 2);
        assertEq(_balance(perQuery, renter), 0);
        assertTrue(market.isRunRecorded(2));
    }

    function test_getAccessState_ValidWhileBalanceCoversTheNextDebit() public {
        _buyPerQuery(renter, perQuery, PRICE);
        vm.prank(creator);
        market.updateListing(perQuery, PRICE * 2, NEW_URI);
        IServiceMarketplace.AccessState memory s = market.getAccessState(perQuery, renter);
        assertEq(s.price, PRICE * 2);
        assertEq(s.agreedPrice, PRICE);
        assertEq(s.balance, PRICE);
        assertTrue(s.isValid);

        _consume(perQuery, renter, 1);
        assertFalse(_valid(perQuery, renter));
    }

    function test_consumeQuery_WorksWhileListingPaused() public {
        _buyPerQuery(renter, perQuery, PRICE * 2);
        _pauseListing(perQuery);
        _consume(perQuery, renter, 1);
        assertEq(_balance(perQuery, renter), PRICE);
    }

    function test_consumeQuery_RunIdsAreGlobalBitmap() public {
        _buyPerQuery(renter, perQuery, PRICE * 10);
        uint256[5] memory ids = [uint256(0), 255, 256, 257, type(uint256).max];
        for (uint256 i; i < ids.length; ++i) {
            assertFalse(market.isRunRecorded(ids[i]));
            _consume(perQuery, renter, ids[i]);
            assertTrue(market.isRunRecorded(ids[i]));
        }
        assertFalse(market.isRunRecorded(1));
        assertFalse(market.isRunRecorded(254));
        assertFalse(market.isRunRecorded(258));
        assertFalse(market.isRunRecorded(type(uint256).max - 1));
        assertEq(_balance(perQuery, renter), PRICE * 5);
    }

    function test_consumeQuery_RevertWhen_RunAlreadyRecorded() public {
        _buyPerQuery(renter, perQuery, PRICE * 5);
        _consume(perQuery, renter, 9);
        uint256 balance = _balance(perQuery, renter);
        uint256 escrow = _escrow(perQuery);
        uint256 fees = _fees(perQuery);

        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.RunAlreadyRecorded.selector, 9));
        vm.prank(authority);
        market.consumeQuery(perQuery, renter, 9, PRICE, true);

        assertEq(_balance(perQuery, renter), balance);
        assertEq(_escrow(perQuery), escrow);
        assertEq(_fees(perQuery), fees);
    }

    function test_consumeQuery_RevertWhen_RunAlreadyRecorded_OtherBuyerOrListing() public {
        bytes32 other = _create(otherCreator, PER_QUERY_SEED, PER_QUERY, PRICE);
        _buyPerQuery(renter, perQuery, PRICE * 5);
        _buyPerQuery(secondRenter, perQuery, PRICE * 5);
        _buyPerQuery(renter, other, PRICE * 5);
        _consume(perQuery, renter, 9);

        vm.startPrank(authority);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.RunAlreadyRecorded.selector, 9));
        market.consumeQuery(perQuery, secondRenter, 9, PRICE, true);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.RunAlreadyRecorded.selector, 9));
        market.consumeQuery(other, renter, 9, PRICE, true);
        vm.stopPrank();
    }

    function test_consumeQuery_RevertWhen_Unauthorized() public {
        _buyPerQuery(renter, perQuery, PRICE);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.Unauthorized.selector, creator));
        vm.prank(creator);
        market.consumeQuery(perQuery, renter, 1, PRICE, true);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.Unauthorized.selector, renter));
        vm.prank(renter);
        market.consumeQuery(perQuery, renter, 1, PRICE, true);
    }

    function test_consumeQuery_RevertWhen_ProtocolPaused() public {
        _buyPerQuery(renter, perQuery, PRICE);
        _pauseProtocol();
        vm.expectRevert(_err(IServiceMarketplace.ProtocolPaused.selector));
        vm.prank(authority);
        market.consumeQuery(perQuery, renter, 1, PRICE, true);
    }

    function test_consumeQuery_RevertWhen_ListingNotFound() public {
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.ListingNotFound.selector, UNKNOWN));
        vm.prank(authority);
        market.consumeQuery(UNKNOWN, renter, 1, PRICE, true);
    }

    function test_consumeQuery_RevertWhen_ListingNotActive() public {
        _buyPerQuery(renter, perQuery, PRICE * 2);
        _close(perQuery);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.ListingNotActive.selector, perQuery));
        vm.prank(authority);
        market.consumeQuery(perQuery, renter, 1, PRICE, true);
    }

    function test_consumeQuery_RevertWhen_InvalidAccessType() public {
        _buyOneTime(renter, oneTime);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.InvalidAccessType.selector, ONE_TIME));
        vm.prank(authority);
        market.consumeQuery(oneTime, renter, 1, PRICE, true);
    }

    function test_consumeQuery_RevertWhen_CredentialNotFound() public {
        vm.expectRevert(
            abi.encodeWithSelector(IServiceMarketplace.CredentialNotFound.selector, perQuery, renter)
        );
        vm.prank(authority);
        market.consumeQuery(perQuery, renter, 1, PRICE, true);
    }

    function test_consumeQuery_RevertWhen_CredentialRevoked() public {
        _buyPerQuery(renter, perQuery, PRICE * 2);
        vm.prank(creator);
        market.revokePerQueryAccess(perQuery, renter);
        vm.expectRevert(
            abi.encodeWithSelector(IServiceMarketplace.CredentialRevoked.selector, perQuery, renter)
        );
        vm.prank(authority);
        market.consumeQuery(perQuery, renter, 1, PRICE, true);
    }

    function test_consumeQuery_RevertWhen_InsufficientBalance() public {
        _buyPerQuery(renter, perQuery, PRICE + 1);
        _consume(perQuery, renter, 1);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.InsufficientBalance.selector, 1, PRICE));
        vm.prank(authority);
        market.consumeQuery(perQuery, renter, 2, PRICE, true);
        assertFalse(market.isRunRecorded(2));
    }

    // ─── revokePerQueryAccess ─────────────────────────────────────────────────

    function test_revokePerQueryAccess_RevokesAndEmits() public {
        _buyPerQuery(renter, perQuery, PRICE * 4);
        _consume(perQuery, renter, 1);
        vm.expectEmit(address(market));
        emit IServiceMarketplace.PerQueryAccessRevoked(perQuery, renter, PRICE * 3);
        vm.prank(creator);
        market.revokePerQueryAccess(perQuery, renter);

        (uint96 balance,,, bool isRevoked,) = market.perQueryBalances(perQuery, renter);
        assertTrue(isRevoked);
        assertEq(balance, PRICE * 3);
        assertFalse(_valid(perQuery, renter));
        IServiceMarketplace.AccessState memory s = market.getAccessState(perQuery, renter);
        assertTrue(s.isRevoked);
        assertEq(s.balance, PRICE * 3);
    }

    function test_revokePerQueryAccess_RevertWhen_ListingNotFound() public {
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.ListingNotFound.selector, UNKNOWN));
        vm.prank(creator);
        market.revokePerQueryAccess(UNKNOWN, renter);
    }

    function test_revokePerQueryAccess_RevertWhen_Unauthorized() public {
        _buyPerQuery(renter, perQuery, PRICE);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.Unauthorized.selector, authority));
        vm.prank(authority);
        market.revokePerQueryAccess(perQuery, renter);
    }

    function test_revokePerQueryAccess_RevertWhen_InvalidAccessType() public {
        _buyOneTime(renter, oneTime);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.InvalidAccessType.selector, ONE_TIME));
        vm.prank(creator);
        market.revokePerQueryAccess(oneTime, renter);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.InvalidAccessType.selector, SUBSCRIPTION));
        vm.prank(creator);
        market.revokePerQueryAccess(subscription, renter);
    }

    function test_revokePerQueryAccess_RevertWhen_CredentialNotFound() public {
        vm.expectRevert(
            abi.encodeWithSelector(IServiceMarketplace.CredentialNotFound.selector, perQuery, renter)
        );
        vm.prank(creator);
        market.revokePerQueryAccess(perQuery, renter);
    }

    function test_revokePerQueryAccess_RevertWhen_CredentialRevoked() public {
        _buyPerQuery(renter, perQuery, PRICE);
        vm.startPrank(creator);
        market.revokePerQueryAccess(perQuery, renter);
        vm.expectRevert(
            abi.encodeWithSelector(IServiceMarketplace.CredentialRevoked.selector, perQuery, renter)
        );
        market.revokePerQueryAccess(perQuery, renter);
        vm.stopPrank();
    }

    // ─── reclaimBalance ───────────────────────────────────────────────────────

    function test_reclaimBalance_AfterRevocation() public {
        _buyPerQuery(renter, perQuery, PRICE * 4);
        _consume(perQuery, renter, 1);
        vm.prank(creator);
        market.revokePerQueryAccess(perQuery, renter);
        uint256 before = renter.balance;

        vm.expectEmit(address(market));
        emit IServiceMarketplace.BalanceReclaimed(perQuery, renter, PRICE * 3);
        vm.prank(renter);
        market.reclaimBalance(perQuery);

        assertEq(renter.balance - before, PRICE * 3);
        assertEq(_balance(perQuery, renter), 0);
        assertTrue(_perQueryRevoked(perQuery, renter));
        // The consumed run stays the creator's and the protocol's.
        assertEq(address(market).balance, _escrow(perQuery) + _fees(perQuery));
        assertEq(_escrow(perQuery) + _fees(perQuery), PRICE);
    }

    function test_reclaimBalance_AfterClose() public {
        _buyPerQuery(renter, perQuery, PRICE * 4);
        _buyPerQuery(secondRenter, perQuery, PRICE * 2);
        _consume(perQuery, renter, 1);
        _withdrawAll(perQuery);
        _close(perQuery);

        uint256 before = renter.balance;
        vm.expectEmit(address(market));
        emit IServiceMarketplace.BalanceReclaimed(perQuery, renter, PRICE * 3);
        vm.prank(renter);
        market.reclaimBalance(perQuery);
        assertEq(renter.balance - before, PRICE * 3);

        vm.prank(secondRenter);
        market.reclaimBalance(perQuery);
        assertEq(_balance(perQuery, secondRenter), 0);
        assertEq(address(market).balance, _fees(perQuery));
    }

    function test_reclaimBalance_RevertWhen_CredentialNotFound() public {
        vm.expectRevert(
            abi.encodeWithSelector(IServiceMarketplace.CredentialNotFound.selector, perQuery, renter)
        );
        vm.prank(renter);
        market.reclaimBalance(perQuery);
    }

    function test_reclaimBalance_RevertWhen_Unauthorized() public {
        _buyPerQuery(renter, perQuery, PRICE * 2);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.Unauthorized.selector, renter));
        vm.prank(renter);
        market.reclaimBalance(perQuery);

        // A paused listing is not closed: the balance stays locked for runs.
        _pauseListing(perQuery);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.Unauthorized.selector, renter));
        vm.prank(renter);
        market.reclaimBalance(perQuery);
    }

    function test_reclaimBalance_RevertWhen_NothingToWithdraw() public {
        _buyPerQuery(renter, perQuery, PRICE * 2);
        vm.prank(creator);
        market.revokePerQueryAccess(perQuery, renter);
        vm.prank(renter);
        market.reclaimBalance(perQuery);

        vm.expectRevert(_err(IServiceMarketplace.NothingToWithdraw.selector));
        vm.prank(renter);
        market.reclaimBalance(perQuery);
    }

    function test_reclaimBalance_RevertWhen_NothingToWithdraw_FullyConsumed() public {
        _buyPerQuery(renter, perQuery, PRICE);
        _consume(perQuery, renter, 1);
        _withdrawAll(perQuery);
        _close(perQuery);
        vm.expectRevert(_err(IServiceMarketplace.NothingToWithdraw.selector));
        vm.prank(renter);
        market.reclaimBalance(perQuery);
    }
}
