// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {BaseTest} from "./Base.t.sol";
import {IServiceMarketplace} from "../src/interfaces/IServiceMarketplace.sol";

/// @notice One-time and subscription sales, renewals, revocation and creator withdrawals.
contract PurchasesTest is BaseTest {
    // ─── purchaseOneTime ──────────────────────────────────────────────────────

    function test_purchaseOneTime_StoresCredentialSplitsAndEmits() public {
        uint256 fee = PRICE * DEFAULT_FEE_BPS / BPS;
        vm.expectEmit(address(market));
        emit IServiceMarketplace.AccessPurchased(oneTime, renter, ONE_TIME, PRICE, fee, 0);
        _buyOneTime(renter, oneTime);

        (address buyer, uint40 purchasedAt, uint40 expiresAt, bool isRevoked) =
            market.credentials(oneTime, renter);
        assertEq(buyer, renter);
        assertEq(purchasedAt, START);
        assertEq(expiresAt, 0);
        assertFalse(isRevoked);
        assertEq(_fees(oneTime), fee);
        assertEq(_escrow(oneTime), PRICE - fee);
        assertEq(_fees(oneTime) + _escrow(oneTime), PRICE);
        assertEq(address(market).balance, PRICE);
        assertTrue(_valid(oneTime, renter));
    }

    function test_purchaseOneTime_NeverExpires() public {
        _buyOneTime(renter, oneTime);
        vm.warp(START + 3650 days);
        assertTrue(_valid(oneTime, renter));
        assertEq(market.getAccessState(oneTime, renter).expiresAt, 0);
    }

    function test_purchaseOneTime_SeveralBuyersAccumulate() public {
        _buyOneTime(renter, oneTime);
        _buyOneTime(secondRenter, oneTime);
        uint256 fee = PRICE * DEFAULT_FEE_BPS / BPS;
        assertEq(_fees(oneTime), 2 * fee);
        assertEq(_escrow(oneTime), 2 * (PRICE - fee));
        assertEq(address(market).balance, 2 * PRICE);
    }

    function test_purchaseOneTime_RevertWhen_IncorrectPayment() public {
        vm.startPrank(renter);
        vm.expectRevert(
            abi.encodeWithSelector(IServiceMarketplace.IncorrectPayment.selector, PRICE - 1, PRICE)
        );
        market.purchaseOneTime{value: PRICE - 1}(oneTime);
        vm.expectRevert(
            abi.encodeWithSelector(IServiceMarketplace.IncorrectPayment.selector, PRICE + 1, PRICE)
        );
        market.purchaseOneTime{value: PRICE + 1}(oneTime);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.IncorrectPayment.selector, 0, PRICE));
        market.purchaseOneTime(oneTime);
        vm.stopPrank();
    }

    function test_purchaseOneTime_RevertWhen_ListingNotFound() public {
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.ListingNotFound.selector, UNKNOWN));
        vm.prank(renter);
        market.purchaseOneTime{value: PRICE}(UNKNOWN);
    }

    function test_purchaseOneTime_RevertWhen_ListingNotActive() public {
        _pauseListing(oneTime);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.ListingNotActive.selector, oneTime));
        vm.prank(renter);
        market.purchaseOneTime{value: PRICE}(oneTime);
    }

    function test_purchaseOneTime_RevertWhen_ListingNotActive_Closed() public {
        _close(oneTime);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.ListingNotActive.selector, oneTime));
        vm.prank(renter);
        market.purchaseOneTime{value: PRICE}(oneTime);
    }

    function test_purchaseOneTime_RevertWhen_InvalidAccessType() public {
        vm.startPrank(renter);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.InvalidAccessType.selector, SUBSCRIPTION));
        market.purchaseOneTime{value: PRICE}(subscription);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.InvalidAccessType.selector, PER_QUERY));
        market.purchaseOneTime{value: PRICE}(perQuery);
        vm.stopPrank();
    }

    function test_purchaseOneTime_RevertWhen_CredentialAlreadyExists() public {
        _buyOneTime(renter, oneTime);
        vm.expectRevert(
            abi.encodeWithSelector(IServiceMarketplace.CredentialAlreadyExists.selector, oneTime, renter)
        );
        vm.prank(renter);
        market.purchaseOneTime{value: PRICE}(oneTime);
    }

    function test_purchaseOneTime_RevertWhen_CredentialRevoked() public {
        _buyOneTime(renter, oneTime);
        vm.prank(creator);
        market.revokeAccess(oneTime, renter);
        vm.expectRevert(
            abi.encodeWithSelector(IServiceMarketplace.CredentialRevoked.selector, oneTime, renter)
        );
        vm.prank(renter);
        market.purchaseOneTime{value: PRICE}(oneTime);
    }

    function test_purchaseOneTime_RevertWhen_ProtocolPaused() public {
        _pauseProtocol();
        vm.expectRevert(_err(IServiceMarketplace.ProtocolPaused.selector));
        vm.prank(renter);
        market.purchaseOneTime{value: PRICE}(oneTime);
    }

    // ─── purchaseSubscription ─────────────────────────────────────────────────

    function test_purchaseSubscription_StoresCredentialSplitsAndEmits() public {
        uint256[3] memory durations = [uint256(30 days), 90 days, 365 days];
        address[3] memory buyers = [renter, secondRenter, stranger];
        uint256 paid;
        for (uint256 i; i < 3; ++i) {
            uint256 quote = uint256(PRICE) * durations[i] / 30 days;
            uint256 fee = quote * DEFAULT_FEE_BPS / BPS;
            uint40 expiresAt = uint40(START + durations[i]);
            uint256 escrowBefore = _escrow(subscription);
            uint256 feesBefore = _fees(subscription);

            vm.expectEmit(address(market));
            emit IServiceMarketplace.AccessPurchased(
                subscription, buyers[i], SUBSCRIPTION, quote, fee, expiresAt
            );
            vm.prank(buyers[i]);
            market.purchaseSubscription{value: quote}(subscription, durations[i]);
            paid += quote;

            (address buyer, uint40 purchasedAt, uint40 expiresAt_, bool isRevoked) =
                market.credentials(subscription, buyers[i]);
            assertEq(buyer, buyers[i]);
            assertEq(purchasedAt, START);
            assertEq(expiresAt_, expiresAt);
            assertFalse(isRevoked);
            assertEq(_fees(subscription) - feesBefore, fee);
            assertEq(_escrow(subscription) - escrowBefore, quote - fee);
            assertTrue(_valid(subscription, buyers[i]));
        }
        assertEq(address(market).balance, paid);
        assertEq(_escrow(subscription) + _fees(subscription), paid);
    }

    function test_purchaseSubscription_ExpiresExactlyAtExpiresAt() public {
        _buySubscription(renter, subscription, 30 days);
        uint256 expiresAt = START + 30 days;
        vm.warp(expiresAt - 1);
        assertTrue(_valid(subscription, renter));
        vm.warp(expiresAt);
        assertFalse(_valid(subscription, renter));
        vm.warp(expiresAt + 365 days);
        assertFalse(_valid(subscription, renter));
    }

    function test_purchaseSubscription_RevertWhen_InvalidDuration() public {
        uint256[5] memory bad = [uint256(0), 1, 30 days - 1, 31 days, type(uint256).max];
        for (uint256 i; i < bad.length; ++i) {
            vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.InvalidDuration.selector, bad[i]));
            vm.prank(renter);
            market.purchaseSubscription{value: PRICE}(subscription, bad[i]);
        }
    }

    function test_purchaseSubscription_RevertWhen_IncorrectPayment() public {
        vm.startPrank(renter);
        vm.expectRevert(
            abi.encodeWithSelector(IServiceMarketplace.IncorrectPayment.selector, PRICE, PRICE * 3)
        );
        market.purchaseSubscription{value: PRICE}(subscription, 90 days);
        vm.expectRevert(
            abi.encodeWithSelector(IServiceMarketplace.IncorrectPayment.selector, PRICE + 1, PRICE)
        );
        market.purchaseSubscription{value: PRICE + 1}(subscription, 30 days);
        vm.stopPrank();
    }

    function test_purchaseSubscription_RevertWhen_ListingNotFound() public {
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.ListingNotFound.selector, UNKNOWN));
        vm.prank(renter);
        market.purchaseSubscription{value: PRICE}(UNKNOWN, 30 days);
    }

    function test_purchaseSubscription_RevertWhen_ListingNotActive() public {
        _pauseListing(subscription);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.ListingNotActive.selector, subscription));
        vm.prank(renter);
        market.purchaseSubscription{value: PRICE}(subscription, 30 days);
    }

    function test_purchaseSubscription_RevertWhen_InvalidAccessType() public {
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.InvalidAccessType.selector, ONE_TIME));
        vm.prank(renter);
        market.purchaseSubscription{value: PRICE}(oneTime, 30 days);
    }

    function test_purchaseSubscription_RevertWhen_CredentialAlreadyExists() public {
        _buySubscription(renter, subscription, 30 days);
        vm.expectRevert(
            abi.encodeWithSelector(IServiceMarketplace.CredentialAlreadyExists.selector, subscription, renter)
        );
        vm.prank(renter);
        market.purchaseSubscription{value: PRICE}(subscription, 30 days);
    }

    function test_purchaseSubscription_RevertWhen_CredentialAlreadyExists_Expired() public {
        _buySubscription(renter, subscription, 30 days);
        vm.warp(START + 400 days);
        vm.expectRevert(
            abi.encodeWithSelector(IServiceMarketplace.CredentialAlreadyExists.selector, subscription, renter)
        );
        vm.prank(renter);
        market.purchaseSubscription{value: PRICE}(subscription, 30 days);
    }

    function test_purchaseSubscription_RevertWhen_CredentialRevoked() public {
        _buySubscription(renter, subscription, 30 days);
        vm.prank(creator);
        market.revokeAccess(subscription, renter);
        vm.expectRevert(
            abi.encodeWithSelector(IServiceMarketplace.CredentialRevoked.selector, subscription, renter)
        );
        vm.prank(renter);
        market.purchaseSubscription{value: PRICE}(subscription, 30 days);
    }

    function test_purchaseSubscription_RevertWhen_ProtocolPaused() public {
        _pauseProtocol();
        vm.expectRevert(_err(IServiceMarketplace.ProtocolPaused.selector));
        vm.prank(renter);
        market.purchaseSubscription{value: PRICE}(subscription, 30 days);
    }

    // ─── renewSubscription ────────────────────────────────────────────────────

    function test_renewSubscription_ActiveExtendsFromExpiry() public {
        _buySubscription(renter, subscription, 30 days);
        vm.warp(START + 10 days);
        uint256 quote = PRICE * 3;
        uint256 fee = quote * DEFAULT_FEE_BPS / BPS;
        uint40 expected = uint40(START + 30 days + 90 days);
        uint256 escrowBefore = _escrow(subscription);
        uint256 feesBefore = _fees(subscription);

        vm.expectEmit(address(market));
        emit IServiceMarketplace.SubscriptionRenewed(subscription, renter, quote, fee, expected);
        _renew(renter, subscription, 90 days);

        assertEq(_expiresAt(subscription, renter), expected);
        (, uint40 purchasedAt,,) = market.credentials(subscription, renter);
        assertEq(purchasedAt, START);
        assertEq(_fees(subscription) - feesBefore, fee);
        assertEq(_escrow(subscription) - escrowBefore, quote - fee);
        assertEq(address(market).balance, PRICE + quote);
        vm.warp(expected - 1);
        assertTrue(_valid(subscription, renter));
        vm.warp(expected);
        assertFalse(_valid(subscription, renter));
    }

    function test_renewSubscription_ExpiredExtendsFromNow() public {
        _buySubscription(renter, subscription, 30 days);
        uint256 later = START + 100 days;
        vm.warp(later);
        assertFalse(_valid(subscription, renter));

        uint256 quote = uint256(PRICE) * 365 days / 30 days;
        vm.expectEmit(address(market));
        emit IServiceMarketplace.SubscriptionRenewed(
            subscription, renter, quote, quote * DEFAULT_FEE_BPS / BPS, uint40(later + 365 days)
        );
        _renew(renter, subscription, 365 days);

        assertEq(_expiresAt(subscription, renter), later + 365 days);
        assertTrue(_valid(subscription, renter));
    }

    function test_renewSubscription_AtExactExpiryExtendsFromNow() public {
        _buySubscription(renter, subscription, 30 days);
        vm.warp(START + 30 days);
        _renew(renter, subscription, 30 days);
        assertEq(_expiresAt(subscription, renter), START + 60 days);
    }

    function test_renewSubscription_RevertWhen_CredentialNotFound() public {
        vm.expectRevert(
            abi.encodeWithSelector(IServiceMarketplace.CredentialNotFound.selector, subscription, renter)
        );
        vm.prank(renter);
        market.renewSubscription{value: PRICE}(subscription, 30 days);
    }

    function test_renewSubscription_RevertWhen_CredentialRevoked() public {
        _buySubscription(renter, subscription, 30 days);
        vm.prank(creator);
        market.revokeAccess(subscription, renter);
        vm.expectRevert(
            abi.encodeWithSelector(IServiceMarketplace.CredentialRevoked.selector, subscription, renter)
        );
        vm.prank(renter);
        market.renewSubscription{value: PRICE}(subscription, 30 days);
    }

    function test_renewSubscription_RevertWhen_InvalidDuration() public {
        _buySubscription(renter, subscription, 30 days);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.InvalidDuration.selector, 7 days));
        vm.prank(renter);
        market.renewSubscription{value: PRICE}(subscription, 7 days);
    }

    function test_renewSubscription_RevertWhen_IncorrectPayment() public {
        _buySubscription(renter, subscription, 30 days);
        vm.expectRevert(
            abi.encodeWithSelector(IServiceMarketplace.IncorrectPayment.selector, PRICE, PRICE * 3)
        );
        vm.prank(renter);
        market.renewSubscription{value: PRICE}(subscription, 90 days);
    }

    function test_renewSubscription_RevertWhen_ListingNotFound() public {
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.ListingNotFound.selector, UNKNOWN));
        vm.prank(renter);
        market.renewSubscription{value: PRICE}(UNKNOWN, 30 days);
    }

    function test_renewSubscription_RevertWhen_ListingNotActive() public {
        _buySubscription(renter, subscription, 30 days);
        _pauseListing(subscription);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.ListingNotActive.selector, subscription));
        vm.prank(renter);
        market.renewSubscription{value: PRICE}(subscription, 30 days);
    }

    function test_renewSubscription_RevertWhen_InvalidAccessType() public {
        _buyOneTime(renter, oneTime);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.InvalidAccessType.selector, ONE_TIME));
        vm.prank(renter);
        market.renewSubscription{value: PRICE}(oneTime, 30 days);
    }

    function test_renewSubscription_RevertWhen_ProtocolPaused() public {
        _buySubscription(renter, subscription, 30 days);
        _pauseProtocol();
        vm.expectRevert(_err(IServiceMarketplace.ProtocolPaused.selector));
        vm.prank(renter);
        market.renewSubscription{value: PRICE}(subscription, 30 days);
    }

    // ─── revokeAccess ─────────────────────────────────────────────────────────

    function test_revokeAccess_OneTimeRevokesAndEmits() public {
        _buyOneTime(renter, oneTime);
        _buyOneTime(secondRenter, oneTime);
        vm.expectEmit(address(market));
        emit IServiceMarketplace.AccessRevoked(oneTime, renter);
        vm.prank(creator);
        market.revokeAccess(oneTime, renter);

        assertTrue(_credentialRevoked(oneTime, renter));
        assertFalse(_valid(oneTime, renter));
        assertTrue(_valid(oneTime, secondRenter));
        // Revocation keeps what was paid in escrow.
        assertEq(_escrow(oneTime) + _fees(oneTime), 2 * PRICE);
    }

    function test_revokeAccess_SubscriptionRevokesAndEmits() public {
        _buySubscription(renter, subscription, 365 days);
        vm.expectEmit(address(market));
        emit IServiceMarketplace.AccessRevoked(subscription, renter);
        vm.prank(creator);
        market.revokeAccess(subscription, renter);
        assertTrue(_credentialRevoked(subscription, renter));
        assertFalse(_valid(subscription, renter));
    }

    function test_revokeAccess_WorksWhileListingPaused() public {
        _buyOneTime(renter, oneTime);
        _pauseListing(oneTime);
        vm.prank(creator);
        market.revokeAccess(oneTime, renter);
        assertFalse(_valid(oneTime, renter));
    }

    function test_revokeAccess_RevertWhen_ListingNotFound() public {
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.ListingNotFound.selector, UNKNOWN));
        vm.prank(creator);
        market.revokeAccess(UNKNOWN, renter);
    }

    function test_revokeAccess_RevertWhen_Unauthorized() public {
        _buyOneTime(renter, oneTime);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.Unauthorized.selector, renter));
        vm.prank(renter);
        market.revokeAccess(oneTime, renter);
    }

    function test_revokeAccess_RevertWhen_InvalidAccessType() public {
        _buyPerQuery(renter, perQuery, PRICE);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.InvalidAccessType.selector, PER_QUERY));
        vm.prank(creator);
        market.revokeAccess(perQuery, renter);
    }

    function test_revokeAccess_RevertWhen_CredentialNotFound() public {
        vm.expectRevert(
            abi.encodeWithSelector(IServiceMarketplace.CredentialNotFound.selector, oneTime, renter)
        );
        vm.prank(creator);
        market.revokeAccess(oneTime, renter);
    }

    function test_revokeAccess_RevertWhen_CredentialRevoked() public {
        _buyOneTime(renter, oneTime);
        vm.startPrank(creator);
        market.revokeAccess(oneTime, renter);
        vm.expectRevert(
            abi.encodeWithSelector(IServiceMarketplace.CredentialRevoked.selector, oneTime, renter)
        );
        market.revokeAccess(oneTime, renter);
        vm.stopPrank();
    }

    // ─── withdrawEarnings ─────────────────────────────────────────────────────

    function test_withdrawEarnings_FullAndEmits() public {
        _buyOneTime(renter, oneTime);
        uint256 escrow = _escrow(oneTime);
        uint256 fees = _fees(oneTime);

        vm.expectEmit(address(market));
        emit IServiceMarketplace.EarningsWithdrawn(oneTime, creator, escrow);
        vm.prank(creator);
        market.withdrawEarnings(oneTime, escrow);

        assertEq(_escrow(oneTime), 0);
        assertEq(_fees(oneTime), fees);
        assertEq(creator.balance, escrow);
        assertEq(address(market).balance, fees);
    }

    function test_withdrawEarnings_Partial() public {
        _buyOneTime(renter, oneTime);
        uint256 escrow = _escrow(oneTime);
        vm.prank(creator);
        market.withdrawEarnings(oneTime, 1);
        assertEq(_escrow(oneTime), escrow - 1);
        assertEq(creator.balance, 1);

        vm.prank(creator);
        market.withdrawEarnings(oneTime, escrow - 1);
        assertEq(_escrow(oneTime), 0);
        assertEq(creator.balance, escrow);
    }

    function test_withdrawEarnings_OnlyFromOwnListing() public {
        bytes32 other = _create(otherCreator, ONE_TIME_SEED, ONE_TIME, PRICE);
        _buyOneTime(renter, oneTime);
        _buyOneTime(renter, other);
        uint256 escrow = _escrow(other);
        vm.prank(otherCreator);
        market.withdrawEarnings(other, escrow);
        assertEq(otherCreator.balance, escrow);
        assertEq(_escrow(oneTime), escrow);
    }

    function test_withdrawEarnings_RevertWhen_Unauthorized() public {
        _buyOneTime(renter, oneTime);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.Unauthorized.selector, stranger));
        vm.prank(stranger);
        market.withdrawEarnings(oneTime, 1);

        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.Unauthorized.selector, authority));
        vm.prank(authority);
        market.withdrawEarnings(oneTime, 1);
    }

    function test_withdrawEarnings_RevertWhen_ListingNotFound() public {
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.ListingNotFound.selector, UNKNOWN));
        vm.prank(creator);
        market.withdrawEarnings(UNKNOWN, 1);
    }

    function test_withdrawEarnings_RevertWhen_NothingToWithdraw_ZeroAmount() public {
        _buyOneTime(renter, oneTime);
        vm.expectRevert(_err(IServiceMarketplace.NothingToWithdraw.selector));
        vm.prank(creator);
        market.withdrawEarnings(oneTime, 0);
    }

    function test_withdrawEarnings_RevertWhen_NothingToWithdraw_EmptyEscrow() public {
        vm.expectRevert(_err(IServiceMarketplace.NothingToWithdraw.selector));
        vm.prank(creator);
        market.withdrawEarnings(oneTime, 1);
    }

    function test_withdrawEarnings_RevertWhen_WithdrawalExceedsBalance() public {
        _buyOneTime(renter, oneTime);
        uint256 escrow = _escrow(oneTime);
        vm.expectRevert(
            abi.encodeWithSelector(IServiceMarketplace.WithdrawalExceedsBalance.selector, escrow + 1, escrow)
        );
        vm.prank(creator);
        market.withdrawEarnings(oneTime, escrow + 1);
    }

    function test_withdrawEarnings_RevertWhen_WithdrawalExceedsBalance_CannotTakeFees() public {
        _buyOneTime(renter, oneTime);
        uint256 escrow = _escrow(oneTime);
        uint256 all = escrow + _fees(oneTime);
        vm.expectRevert(
            abi.encodeWithSelector(IServiceMarketplace.WithdrawalExceedsBalance.selector, all, escrow)
        );
        vm.prank(creator);
        market.withdrawEarnings(oneTime, all);
    }
}
