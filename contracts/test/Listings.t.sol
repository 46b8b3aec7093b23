// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {BaseTest} from "./Base.t.sol";
import {ServiceMarketplace} from "../src/ServiceMarketplace.sol";
import {IServiceMarketplace} from "../src/interfaces/IServiceMarketplace.sol";

/// @notice Constructor, listing lifecycle (create, update, pause, close) and the pure/view helpers.
contract ListingsTest is BaseTest {
    // ─── constructor ──────────────────────────────────────────────────────────

    function test_constructor_SetsConfig() public view {
        assertEq(market.authority(), authority);
        assertEq(market.feeRecipient(), feeRecipient);
        assertEq(market.receiptsSigner(), receiptsSigner);
        assertEq(market.feeBasisPoints(), DEFAULT_FEE_BPS);
        assertFalse(market.paused());
        assertEq(market.MAX_FEE_BASIS_POINTS(), MAX_FEE_BPS);
        assertEq(market.MIN_PRICE(), MIN_PRICE);
        assertEq(market.MAX_METADATA_URI_LENGTH(), MAX_URI);
        assertEq(market.SUBSCRIPTION_PERIOD(), 30 days);
    }

    function test_constructor_EmitsInitialConfig() public {
        vm.expectEmit();
        emit IServiceMarketplace.AuthorityTransferred(address(0), authority);
        vm.expectEmit();
        emit IServiceMarketplace.OperatorChanged(address(0), operator);
        vm.expectEmit();
        emit IServiceMarketplace.FeeRecipientUpdated(address(0), feeRecipient);
        vm.expectEmit();
        emit IServiceMarketplace.FeeBasisPointsUpdated(0, DEFAULT_FEE_BPS);
        vm.expectEmit();
        emit IServiceMarketplace.ReceiptsSignerChanged(address(0), receiptsSigner);
        ServiceMarketplace deployed =
            new ServiceMarketplace(authority, operator, feeRecipient, receiptsSigner);
        assertEq(deployed.authority(), authority);
        assertEq(deployed.operator(), operator);
        assertEq(deployed.feeRecipient(), feeRecipient);
        assertEq(deployed.receiptsSigner(), receiptsSigner);
    }

    function test_constructor_RevertWhen_ZeroAddress_Authority() public {
        vm.expectRevert(_err(IServiceMarketplace.ZeroAddress.selector));
        new ServiceMarketplace(address(0), operator, feeRecipient, receiptsSigner);
    }

    function test_constructor_RevertWhen_ZeroAddress_Operator() public {
        vm.expectRevert(_err(IServiceMarketplace.ZeroAddress.selector));
        new ServiceMarketplace(authority, address(0), feeRecipient, receiptsSigner);
    }

    function test_constructor_RevertWhen_ZeroAddress_FeeRecipient() public {
        vm.expectRevert(_err(IServiceMarketplace.ZeroAddress.selector));
        new ServiceMarketplace(authority, operator, address(0), receiptsSigner);
    }

    function test_constructor_RevertWhen_ZeroAddress_ReceiptsSigner() public {
        vm.expectRevert(_err(IServiceMarketplace.ZeroAddress.selector));
        new ServiceMarketplace(authority, operator, feeRecipient, address(0));
    }

    // ─── createListing ────────────────────────────────────────────────────────

    function test_createListing_StoresListingAndEmits() public {
        for (uint256 m; m < 3; ++m) {
            IServiceMarketplace.RentalModel model = IServiceMarketplace.RentalModel(m);
            bytes32 seed = bytes32(100 + m);
            bytes32 expectedId = market.deriveListingId(otherCreator, seed);

            vm.expectEmit(address(market));
            emit IServiceMarketplace.ListingCreated(expectedId, otherCreator, model, PRICE, URI);
            vm.prank(otherCreator);
            bytes32 listingId = market.createListing(seed, model, PRICE, URI);

            assertEq(listingId, expectedId);
            (
                address creator_,
                uint96 price,
                uint112 escrow,
                uint112 accruedFees,
                IServiceMarketplace.RentalModel model_,
                IServiceMarketplace.ListingStatus status
            ) = market.listings(listingId);
            assertEq(creator_, otherCreator);
            assertEq(price, PRICE);
            assertEq(escrow, 0);
            assertEq(accruedFees, 0);
            assertEq(uint8(model_), uint8(model));
            assertEq(uint8(status), uint8(IServiceMarketplace.ListingStatus.Active));
        }
    }

    function test_createListing_AcceptsBoundaryTerms() public {
        bytes32 a = _createWith(bytes32(uint256(10)), MIN_PRICE, _uri(1));
        bytes32 b = _createWith(bytes32(uint256(11)), type(uint96).max, _uri(MAX_URI));
        assertEq(_price(a), MIN_PRICE);
        assertEq(_price(b), type(uint96).max);
    }

    function test_createListing_SameSeedDifferentCreators() public {
        bytes32 id = _create(otherCreator, ONE_TIME_SEED, ONE_TIME, PRICE);
        assertTrue(id != oneTime);
        assertEq(_creator(id), otherCreator);
        assertEq(_creator(oneTime), creator);
    }

    function test_createListing_RevertWhen_ListingAlreadyExists() public {
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.ListingAlreadyExists.selector, oneTime));
        vm.prank(creator);
        market.createListing(ONE_TIME_SEED, PER_QUERY, PRICE * 2, URI);
    }

    function test_createListing_RevertWhen_ListingAlreadyExists_AfterClose() public {
        _close(oneTime);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.ListingAlreadyExists.selector, oneTime));
        vm.prank(creator);
        market.createListing(ONE_TIME_SEED, ONE_TIME, PRICE, URI);
    }

    function test_createListing_RevertWhen_PriceTooLow() public {
        vm.expectRevert(
            abi.encodeWithSelector(IServiceMarketplace.PriceTooLow.selector, MIN_PRICE - 1, MIN_PRICE)
        );
        vm.prank(creator);
        market.createListing(bytes32(uint256(10)), ONE_TIME, uint96(MIN_PRICE - 1), URI);
    }

    function test_createListing_RevertWhen_PriceTooLow_Zero() public {
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.PriceTooLow.selector, 0, MIN_PRICE));
        vm.prank(creator);
        market.createListing(bytes32(uint256(10)), PER_QUERY, 0, URI);
    }

    function test_createListing_RevertWhen_MetadataUriEmpty() public {
        vm.expectRevert(_err(IServiceMarketplace.MetadataUriEmpty.selector));
        vm.prank(creator);
        market.createListing(bytes32(uint256(10)), ONE_TIME, PRICE, "");
    }

    function test_createListing_RevertWhen_MetadataUriTooLong() public {
        vm.expectRevert(
            abi.encodeWithSelector(IServiceMarketplace.MetadataUriTooLong.selector, MAX_URI + 1, MAX_URI)
        );
        vm.prank(creator);
        market.createListing(bytes32(uint256(10)), ONE_TIME, PRICE, _uri(MAX_URI + 1));
    }

    function test_createListing_RevertWhen_ProtocolPaused() public {
        _pauseProtocol();
        vm.expectRevert(_err(IServiceMarketplace.ProtocolPaused.selector));
        vm.prank(creator);
        market.createListing(bytes32(uint256(10)), ONE_TIME, PRICE, URI);
    }

    // ─── updateListing ────────────────────────────────────────────────────────

    function test_updateListing_ChangesPriceAndEmits() public {
        _buyOneTime(renter, oneTime);
        uint256 escrow = _escrow(oneTime);
        uint256 fees = _fees(oneTime);

        vm.expectEmit(address(market));
        emit IServiceMarketplace.ListingUpdated(oneTime, PRICE * 3, NEW_URI);
        vm.prank(creator);
        market.updateListing(oneTime, PRICE * 3, NEW_URI);

        assertEq(_price(oneTime), PRICE * 3);
        assertEq(_creator(oneTime), creator);
        assertEq(_escrow(oneTime), escrow);
        assertEq(_fees(oneTime), fees);
        assertEq(uint8(_model(oneTime)), uint8(ONE_TIME));
        assertEq(uint8(_status(oneTime)), uint8(IServiceMarketplace.ListingStatus.Active));
    }

    function test_updateListing_LeavesCredentialsUntouched() public {
        _buyOneTime(renter, oneTime);
        _buySubscription(renter, subscription, 30 days);
        uint40 expiresAt = _expiresAt(subscription, renter);

        vm.startPrank(creator);
        market.updateListing(oneTime, PRICE * 5, NEW_URI);
        market.updateListing(subscription, PRICE * 5, NEW_URI);
        vm.stopPrank();

        assertTrue(_valid(oneTime, renter));
        assertTrue(_valid(subscription, renter));
        assertEq(_expiresAt(subscription, renter), expiresAt);
    }

    function test_updateListing_NewPriceAppliesToNextSale() public {
        vm.prank(creator);
        market.updateListing(oneTime, PRICE * 2, NEW_URI);

        vm.expectRevert(
            abi.encodeWithSelector(IServiceMarketplace.IncorrectPayment.selector, PRICE, PRICE * 2)
        );
        vm.prank(renter);
        market.purchaseOneTime{value: PRICE}(oneTime);

        _buyOneTime(renter, oneTime);
        assertEq(_escrow(oneTime) + _fees(oneTime), PRICE * 2);
    }

    function test_updateListing_WorksWhilePaused() public {
        _pauseListing(oneTime);
        vm.prank(creator);
        market.updateListing(oneTime, PRICE * 2, NEW_URI);
        assertEq(_price(oneTime), PRICE * 2);
        assertEq(uint8(_status(oneTime)), uint8(IServiceMarketplace.ListingStatus.Paused));
    }

    function test_updateListing_RevertWhen_ListingNotFound() public {
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.ListingNotFound.selector, UNKNOWN));
        vm.prank(creator);
        market.updateListing(UNKNOWN, PRICE, URI);
    }

    function test_updateListing_RevertWhen_Unauthorized() public {
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.Unauthorized.selector, stranger));
        vm.prank(stranger);
        market.updateListing(oneTime, PRICE, URI);
    }

    function test_updateListing_RevertWhen_ListingNotActive() public {
        _close(oneTime);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.ListingNotActive.selector, oneTime));
        vm.prank(creator);
        market.updateListing(oneTime, PRICE, URI);
    }

    function test_updateListing_RevertWhen_PriceTooLow() public {
        vm.expectRevert(
            abi.encodeWithSelector(IServiceMarketplace.PriceTooLow.selector, MIN_PRICE - 1, MIN_PRICE)
        );
        vm.prank(creator);
        market.updateListing(oneTime, uint96(MIN_PRICE - 1), URI);
    }

    function test_updateListing_RevertWhen_MetadataUriEmpty() public {
        vm.expectRevert(_err(IServiceMarketplace.MetadataUriEmpty.selector));
        vm.prank(creator);
        market.updateListing(oneTime, PRICE, "");
    }

    function test_updateListing_RevertWhen_MetadataUriTooLong() public {
        vm.expectRevert(
            abi.encodeWithSelector(IServiceMarketplace.MetadataUriTooLong.selector, MAX_URI + 1, MAX_URI)
        );
        vm.prank(creator);
        market.updateListing(oneTime, PRICE, _uri(MAX_URI + 1));
    }

    // ─── setListingActive ─────────────────────────────────────────────────────

    function test_setListingActive_PausesAndReactivates() public {
        vm.expectEmit(address(market));
        emit IServiceMarketplace.ListingStatusChanged(oneTime, IServiceMarketplace.ListingStatus.Paused);
        vm.prank(creator);
        market.setListingActive(oneTime, false);
        assertEq(uint8(_status(oneTime)), uint8(IServiceMarketplace.ListingStatus.Paused));

        vm.expectEmit(address(market));
        emit IServiceMarketplace.ListingStatusChanged(oneTime, IServiceMarketplace.ListingStatus.Active);
        vm.prank(creator);
        market.setListingActive(oneTime, true);
        assertEq(uint8(_status(oneTime)), uint8(IServiceMarketplace.ListingStatus.Active));

        _buyOneTime(renter, oneTime);
        assertTrue(_valid(oneTime, renter));
    }

    function test_setListingActive_PausedBlocksNewSales() public {
        _buySubscription(renter, subscription, 30 days);
        _buyPerQuery(renter, perQuery, PRICE * 2);
        _pauseListing(oneTime);
        _pauseListing(subscription);
        _pauseListing(perQuery);

        vm.startPrank(secondRenter);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.ListingNotActive.selector, oneTime));
        market.purchaseOneTime{value: PRICE}(oneTime);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.ListingNotActive.selector, subscription));
        market.purchaseSubscription{value: PRICE}(subscription, 30 days);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.ListingNotActive.selector, perQuery));
        market.purchasePerQuery{value: PRICE}(perQuery, PRICE);
        vm.stopPrank();

        vm.startPrank(renter);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.ListingNotActive.selector, subscription));
        market.renewSubscription{value: PRICE}(subscription, 30 days);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.ListingNotActive.selector, perQuery));
        market.topUpBalance{value: PRICE}(perQuery, PRICE);
        vm.stopPrank();
    }

    function test_setListingActive_PausedKeepsCredentialsValid() public {
        _buyOneTime(renter, oneTime);
        _buySubscription(renter, subscription, 30 days);
        _buyPerQuery(renter, perQuery, PRICE * 2);
        _pauseListing(oneTime);
        _pauseListing(subscription);
        _pauseListing(perQuery);

        assertTrue(_valid(oneTime, renter));
        assertTrue(_valid(subscription, renter));
        assertTrue(_valid(perQuery, renter));
    }

    function test_setListingActive_RevertWhen_ListingNotFound() public {
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.ListingNotFound.selector, UNKNOWN));
        vm.prank(creator);
        market.setListingActive(UNKNOWN, false);
    }

    function test_setListingActive_RevertWhen_Unauthorized() public {
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.Unauthorized.selector, stranger));
        vm.prank(stranger);
        market.setListingActive(oneTime, false);
    }

    function test_setListingActive_RevertWhen_ListingNotActive() public {
        _close(oneTime);
        vm.startPrank(creator);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.ListingNotActive.selector, oneTime));
        market.setListingActive(oneTime, true);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.ListingNotActive.selector, oneTime));
        market.setListingActive(oneTime, false);
        vm.stopPrank();
    }

    // ─── closeListing ─────────────────────────────────────────────────────────

    function test_closeListing_ClosesAndEmits() public {
        vm.expectEmit(address(market));
        emit IServiceMarketplace.ListingStatusChanged(oneTime, IServiceMarketplace.ListingStatus.Closed);
        vm.prank(creator);
        market.closeListing(oneTime);
        assertEq(uint8(_status(oneTime)), uint8(IServiceMarketplace.ListingStatus.Closed));
    }

    function test_closeListing_ClosesPausedListing() public {
        _pauseListing(perQuery);
        _close(perQuery);
        assertEq(uint8(_status(perQuery)), uint8(IServiceMarketplace.ListingStatus.Closed));
    }

    function test_closeListing_InvalidatesAllCredentials() public {
        _buyOneTime(renter, oneTime);
        _buySubscription(renter, subscription, 365 days);
        _buyPerQuery(renter, perQuery, PRICE * 10);
        _buyPerQuery(secondRenter, perQuery, PRICE * 10);
        _consume(perQuery, renter, 1);
        assertTrue(_valid(oneTime, renter));
        assertTrue(_valid(subscription, renter));
        assertTrue(_valid(perQuery, renter));

        _withdrawAll(oneTime);
        _withdrawAll(subscription);
        _withdrawAll(perQuery);
        _close(oneTime);
        _close(subscription);
        _close(perQuery);

        assertFalse(_valid(oneTime, renter));
        assertFalse(_valid(subscription, renter));
        assertFalse(_valid(perQuery, renter));
        assertFalse(_valid(perQuery, secondRenter));
        // Unspent per-task balances survive the close, reclaimable.
        assertEq(_balance(perQuery, renter), PRICE * 9);
        assertEq(_balance(perQuery, secondRenter), PRICE * 10);
    }

    function test_closeListing_BlocksNewSales() public {
        _close(oneTime);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.ListingNotActive.selector, oneTime));
        vm.prank(renter);
        market.purchaseOneTime{value: PRICE}(oneTime);
    }

    function test_closeListing_KeepsAccruedFeesWithdrawable() public {
        _buyOneTime(renter, oneTime);
        uint256 fees = _fees(oneTime);
        _withdrawAll(oneTime);
        _close(oneTime);

        bytes32[] memory ids = new bytes32[](1);
        ids[0] = oneTime;
        vm.prank(feeRecipient);
        market.withdrawFees(ids);
        assertEq(feeRecipient.balance, fees);
        assertEq(address(market).balance, 0);
    }

    function test_closeListing_RevertWhen_ListingNotFound() public {
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.ListingNotFound.selector, UNKNOWN));
        vm.prank(creator);
        market.closeListing(UNKNOWN);
    }

    function test_closeListing_RevertWhen_Unauthorized() public {
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.Unauthorized.selector, stranger));
        vm.prank(stranger);
        market.closeListing(oneTime);
    }

    function test_closeListing_RevertWhen_ListingNotActive() public {
        _close(oneTime);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.ListingNotActive.selector, oneTime));
        vm.prank(creator);
        market.closeListing(oneTime);
    }

    function test_closeListing_RevertWhen_EscrowNotEmpty() public {
        _buyOneTime(renter, oneTime);
        uint256 escrow = _escrow(oneTime);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.EscrowNotEmpty.selector, escrow));
        vm.prank(creator);
        market.closeListing(oneTime);

        vm.prank(creator);
        market.withdrawEarnings(oneTime, escrow - 1);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.EscrowNotEmpty.selector, 1));
        vm.prank(creator);
        market.closeListing(oneTime);
    }

    // ─── deriveListingId ──────────────────────────────────────────────────────

    function test_deriveListingId_MatchesPackedHash() public view {
        assertEq(
            market.deriveListingId(creator, ONE_TIME_SEED),
            keccak256(abi.encodePacked(creator, ONE_TIME_SEED))
        );
        assertEq(oneTime, keccak256(abi.encodePacked(creator, ONE_TIME_SEED)));
        assertEq(perQuery, keccak256(abi.encodePacked(creator, PER_QUERY_SEED)));
    }

    // ─── subscriptionQuote ────────────────────────────────────────────────────

    function test_subscriptionQuote_ScalesWithDuration() public view {
        assertEq(market.subscriptionQuote(subscription, 30 days), PRICE);
        assertEq(market.subscriptionQuote(subscription, 90 days), PRICE * 3);
        assertEq(market.subscriptionQuote(subscription, 365 days), uint256(PRICE) * 365 days / 30 days);
    }

    function test_subscriptionQuote_RevertWhen_InvalidDuration() public {
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.InvalidDuration.selector, 60 days));
        market.subscriptionQuote(subscription, 60 days);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.InvalidDuration.selector, 0));
        market.subscriptionQuote(subscription, 0);
    }

    function test_subscriptionQuote_RevertWhen_ListingNotFound() public {
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.ListingNotFound.selector, UNKNOWN));
        market.subscriptionQuote(UNKNOWN, 30 days);
    }

    function test_subscriptionQuote_RevertWhen_InvalidAccessType() public {
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.InvalidAccessType.selector, ONE_TIME));
        market.subscriptionQuote(oneTime, 30 days);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.InvalidAccessType.selector, PER_QUERY));
        market.subscriptionQuote(perQuery, 30 days);
    }

    // ─── getAccessState / isCredentialValid ───────────────────────────────────

    function test_getAccessState_OneTime() public {
        _buyOneTime(renter, oneTime);
        IServiceMarketplace.AccessState memory s = market.getAccessState(oneTime, renter);
        assertEq(uint8(s.listingStatus), uint8(IServiceMarketplace.ListingStatus.Active));
        assertEq(uint8(s.model), uint8(ONE_TIME));
        assertEq(s.price, PRICE);
        assertTrue(s.hasCredential);
        assertFalse(s.isRevoked);
        assertEq(s.purchasedAt, START);
        assertEq(s.expiresAt, 0);
        assertEq(s.balance, 0);
        assertTrue(s.isValid);
    }

    function test_getAccessState_Subscription() public {
        _buySubscription(renter, subscription, 90 days);
        IServiceMarketplace.AccessState memory s = market.getAccessState(subscription, renter);
        assertEq(uint8(s.listingStatus), uint8(IServiceMarketplace.ListingStatus.Active));
        assertEq(uint8(s.model), uint8(SUBSCRIPTION));
        assertEq(s.price, PRICE);
        assertTrue(s.hasCredential);
        assertFalse(s.isRevoked);
        assertEq(s.purchasedAt, START);
        assertEq(s.expiresAt, START + 90 days);
        assertEq(s.balance, 0);
        assertTrue(s.isValid);

        vm.warp(START + 90 days);
        s = market.getAccessState(subscription, renter);
        assertTrue(s.hasCredential);
        assertFalse(s.isValid);
    }

    function test_getAccessState_PerQuery() public {
        _buyPerQuery(renter, perQuery, PRICE * 3 + 7);
        IServiceMarketplace.AccessState memory s = market.getAccessState(perQuery, renter);
        assertEq(uint8(s.listingStatus), uint8(IServiceMarketplace.ListingStatus.Active));
        assertEq(uint8(s.model), uint8(PER_QUERY));
        assertEq(s.price, PRICE);
        assertTrue(s.hasCredential);
        assertFalse(s.isRevoked);
        assertEq(s.purchasedAt, START);
        assertEq(s.expiresAt, 0);
        assertEq(s.balance, PRICE * 3 + 7);
        assertTrue(s.isValid);
    }

    function test_getAccessState_RevokedAndPaused() public {
        _buyOneTime(renter, oneTime);
        _pauseListing(oneTime);
        IServiceMarketplace.AccessState memory s = market.getAccessState(oneTime, renter);
        assertEq(uint8(s.listingStatus), uint8(IServiceMarketplace.ListingStatus.Paused));
        assertTrue(s.isValid);

        vm.prank(creator);
        market.revokeAccess(oneTime, renter);
        s = market.getAccessState(oneTime, renter);
        assertTrue(s.hasCredential);
        assertTrue(s.isRevoked);
        assertFalse(s.isValid);
    }

    function test_getAccessState_NoCredential() public view {
        IServiceMarketplace.AccessState memory s = market.getAccessState(subscription, stranger);
        assertEq(uint8(s.listingStatus), uint8(IServiceMarketplace.ListingStatus.Active));
        assertEq(uint8(s.model), uint8(SUBSCRIPTION));
        assertEq(s.price, PRICE);
        assertFalse(s.hasCredential);
        assertEq(s.purchasedAt, 0);
        assertFalse(s.isValid);
        assertFalse(_valid(oneTime, stranger));
        assertFalse(_valid(perQuery, stranger));
    }

    function test_getAccessState_UnknownListing() public view {
        IServiceMarketplace.AccessState memory s = market.getAccessState(UNKNOWN, renter);
        assertEq(uint8(s.listingStatus), uint8(IServiceMarketplace.ListingStatus.None));
        assertEq(s.price, 0);
        assertFalse(s.hasCredential);
        assertFalse(s.isValid);
        assertFalse(_valid(UNKNOWN, renter));
    }

    function _createWith(bytes32 seed, uint256 price, string memory uri) private returns (bytes32 id) {
        vm.prank(creator);
        id = market.createListing(seed, ONE_TIME, uint96(price), uri);
    }
}
