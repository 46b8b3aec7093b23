// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {Test} from "forge-std/Test.sol";
import {ServiceMarketplace} from "../src/ServiceMarketplace.sol";
import {IServiceMarketplace} from "../src/interfaces/IServiceMarketplace.sol";

/// @notice Shared fixture: a marketplace with one open listing of each rental model by `creator`.
abstract contract BaseTest is Test {
    ServiceMarketplace internal market;

    address internal authority = makeAddr("authority");
    address internal operator = makeAddr("operator");
    address internal feeRecipient = makeAddr("feeRecipient");
    address internal receiptsSigner = makeAddr("receiptsSigner");
    address internal creator = makeAddr("creator");
    address internal otherCreator = makeAddr("otherCreator");
    address internal renter = makeAddr("renter");
    address internal secondRenter = makeAddr("secondRenter");
    address internal stranger = makeAddr("stranger");

    string internal constant URI = "ipfs://bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy";
    string internal constant NEW_URI = "ipfs://updated";
    uint96 internal constant PRICE = 0.01 ether;
    uint256 internal constant MIN_PRICE = 0.000001 ether;
    uint256 internal constant MAX_PRICE = 1_000_000 ether;
    uint256 internal constant DEFAULT_FEE_BPS = 250;
    uint256 internal constant MAX_FEE_BPS = 1000;
    uint256 internal constant BPS = 10_000;
    uint256 internal constant MAX_URI = 200;
    uint256 internal constant START = 1_700_000_000;

    bytes32 internal constant ONE_TIME_SEED = bytes32(uint256(1));
    bytes32 internal constant SUBSCRIPTION_SEED = bytes32(uint256(2));
    bytes32 internal constant PER_QUERY_SEED = bytes32(uint256(3));
    bytes32 internal constant UNKNOWN = keccak256("unknown listing");

    IServiceMarketplace.RentalModel internal constant ONE_TIME = IServiceMarketplace.RentalModel.OneTime;
    IServiceMarketplace.RentalModel internal constant SUBSCRIPTION =
    IServiceMarketplace.RentalModel.Subscription;
    IServiceMarketplace.RentalModel internal constant PER_QUERY = IServiceMarketplace.RentalModel.PerQuery;

    bytes32 internal oneTime;
    bytes32 internal subscription;
    bytes32 internal perQuery;

    function setUp() public virtual {
        vm.warp(START);
        market = new ServiceMarketplace(authority, operator, feeRecipient, receiptsSigner);
        vm.deal(renter, 1_000_000_000 ether);
        vm.deal(secondRenter, 1_000_000_000 ether);
        vm.deal(stranger, 1_000_000_000 ether);
        oneTime = _create(creator, ONE_TIME_SEED, ONE_TIME, PRICE);
        subscription = _create(creator, SUBSCRIPTION_SEED, SUBSCRIPTION, PRICE);
        perQuery = _create(creator, PER_QUERY_SEED, PER_QUERY, PRICE);
    }

    // ─── Actions ──────────────────────────────────────────────────────────────

    function _create(address who, bytes32 seed, IServiceMarketplace.RentalModel model, uint256 price)
        internal
        returns (bytes32 listingId)
    {
        vm.prank(who);
        listingId = market.createListing(seed, model, uint96(price), URI);
    }

    function _buyOneTime(address who, bytes32 listingId) internal {
        uint256 price = _price(listingId);
        vm.prank(who);
        market.purchaseOneTime{value: price}(listingId);
    }

    function _buySubscription(address who, bytes32 listingId, uint256 duration) internal {
        uint256 quote = market.subscriptionQuote(listingId, duration);
        vm.prank(who);
        market.purchaseSubscription{value: quote}(listingId, duration);
    }

    function _renew(address who, bytes32 listingId, uint256 duration) internal {
        uint256 quote = market.subscriptionQuote(listingId, duration);
        vm.prank(who);
        market.renewSubscription{value: quote}(listingId, duration);
    }

    /// @dev A deposit as a wallet makes it: accepting the price it sees.
    function _buyPerQuery(address who, bytes32 listingId, uint256 amount) internal {
        uint256 price = _price(listingId);
        vm.prank(who);
        market.purchasePerQuery{value: amount}(listingId, price);
    }

    function _topUp(address who, bytes32 listingId, uint256 amount) internal {
        uint256 price = _price(listingId);
        vm.prank(who);
        market.topUpBalance{value: amount}(listingId, price);
    }

    /// @dev A debit as the service makes it of a run admitted just now: by the operator, its hot key, at most
    /// the price the chain gives the next run (the lower of the agreed and the current price).
    function _consume(bytes32 listingId, address buyer, uint256 runId) internal {
        _consume(listingId, buyer, runId, _nextDebit(listingId, buyer));
    }

    /// @dev A debit of a run admitted at `maxPrice`.
    function _consume(bytes32 listingId, address buyer, uint256 runId, uint256 maxPrice) internal {
        vm.prank(operator);
        market.consumeQuery(listingId, buyer, runId, maxPrice, true);
    }

    function _pauseListing(bytes32 listingId) internal {
        vm.prank(_creator(listingId));
        market.setListingActive(listingId, false);
    }

    function _close(bytes32 listingId) internal {
        vm.prank(_creator(listingId));
        market.closeListing(listingId);
    }

    function _withdrawAll(bytes32 listingId) internal {
        uint256 escrow = _escrow(listingId);
        if (escrow == 0) return;
        vm.prank(_creator(listingId));
        market.withdrawEarnings(listingId, escrow);
    }

    function _pauseProtocol() internal {
        vm.prank(authority);
        market.setPaused(true);
    }

    function _setFee(uint256 bps) internal {
        vm.prank(authority);
        market.setFeeBasisPoints(bps);
    }

    // ─── Reads ────────────────────────────────────────────────────────────────

    function _fee(uint256 amount) internal view returns (uint256) {
        return amount * market.feeBasisPoints() / BPS;
    }

    function _creator(bytes32 listingId) internal view returns (address creator_) {
        (creator_,,,,,) = market.listings(listingId);
    }

    function _price(bytes32 listingId) internal view returns (uint256 price) {
        (, price,,,,) = market.listings(listingId);
    }

    function _escrow(bytes32 listingId) internal view returns (uint256 escrow) {
        (,, escrow,,,) = market.listings(listingId);
    }

    function _fees(bytes32 listingId) internal view returns (uint256 fees) {
        (,,, fees,,) = market.listings(listingId);
    }

    function _model(bytes32 listingId) internal view returns (IServiceMarketplace.RentalModel model) {
        (,,,, model,) = market.listings(listingId);
    }

    function _status(bytes32 listingId) internal view returns (IServiceMarketplace.ListingStatus status) {
        (,,,,, status) = market.listings(listingId);
    }

    function _expiresAt(bytes32 listingId, address buyer) internal view returns (uint40 expiresAt) {
        (,, expiresAt,) = market.credentials(listingId, buyer);
    }

    function _credentialRevoked(bytes32 listingId, address buyer) internal view returns (bool revoked) {
        (,,, revoked) = market.credentials(listingId, buyer);
    }

    function _balance(bytes32 listingId, address buyer) internal view returns (uint256 balance) {
        (balance,,,,) = market.perQueryBalances(listingId, buyer);
    }

    function _agreedPrice(bytes32 listingId, address buyer) internal view returns (uint256 agreedPrice) {
        (, agreedPrice,,,) = market.perQueryBalances(listingId, buyer);
    }

    /// @dev What the next run costs, as admission reads it: the lower of the agreed and the current price.
    function _nextDebit(bytes32 listingId, address buyer) internal view returns (uint256) {
        IServiceMarketplace.AccessState memory state = market.getAccessState(listingId, buyer);
        return state.agreedPrice < state.price ? state.agreedPrice : state.price;
    }

    function _perQueryRevoked(bytes32 listingId, address buyer) internal view returns (bool revoked) {
        (,,, revoked,) = market.perQueryBalances(listingId, buyer);
    }

    function _valid(bytes32 listingId, address buyer) internal view returns (bool) {
        return market.isCredentialValid(listingId, buyer);
    }

    function _uri(uint256 length) internal pure returns (string memory) {
        bytes memory uri = new bytes(length);
        for (uint256 i; i < length; ++i) {
            uri[i] = "a";
        }
        return string(uri);
    }

    function _err(bytes4 selector) internal pure returns (bytes memory) {
        return abi.encodeWithSelector(selector);
    }
}
