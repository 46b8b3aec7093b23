// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {BaseTest} from "./Base.t.sol";
import {AccessRuleAssertions} from "./AccessRule.sol";
import {IServiceMarketplace} from "../src/interfaces/IServiceMarketplace.sol";

/// @notice `requireAccess` refuses a run with the error the API names for it, and lets exactly the
/// credentials `getAccessState` calls valid on an active listing run.
contract RequireAccessTest is BaseTest, AccessRuleAssertions {
    function _expectRefusal(bytes memory refusal, bytes32 listingId, address buyer) internal {
        vm.expectRevert(refusal);
        market.requireAccess(listingId, buyer);
    }

    // ─── Credentials that may run ─────────────────────────────────────────────

    function test_requireAccess_OneTimeRunsForever() public {
        _buyOneTime(renter, oneTime);
        vm.warp(START + 3650 days);
        market.requireAccess(oneTime, renter);
    }

    function test_requireAccess_SubscriptionRunsUntilItsLastSecond() public {
        _buySubscription(renter, subscription, 30 days);
        vm.warp(START + 30 days - 1);
        market.requireAccess(subscription, renter);
    }

    function test_requireAccess_BalanceCoveringTheNextDebitRuns() public {
        _buyPerQuery(renter, perQuery, PRICE);
        market.requireAccess(perQuery, renter);
    }

    function test_requireAccess_APausedProtocolRefusesNoAccess() public {
        _buyPerQuery(renter, perQuery, PRICE);
        _pauseProtocol();
        market.requireAccess(perQuery, renter);
    }

    // ─── Refusals ─────────────────────────────────────────────────────────────

    function test_RevertWhen_ListingUnknown() public {
        _expectRefusal(
            abi.encodeWithSelector(IServiceMarketplace.ListingNotFound.selector, UNKNOWN), UNKNOWN, renter
        );
    }

    function test_RevertWhen_ListingPaused_EvenWithAValidCredential() public {
        _buyOneTime(renter, oneTime);
        _pauseListing(oneTime);
        assertTrue(_valid(oneTime, renter));
        _expectRefusal(
            abi.encodeWithSelector(IServiceMarketplace.ListingNotActive.selector, oneTime), oneTime, renter
        );
    }

    function test_RevertWhen_ListingClosed() public {
        _buyOneTime(renter, oneTime);
        _withdrawAll(oneTime);
        _close(oneTime);
        _expectRefusal(
            abi.encodeWithSelector(IServiceMarketplace.ListingNotActive.selector, oneTime), oneTime, renter
        );
    }

    function test_RevertWhen_NoCredential() public {
        _expectRefusal(
            abi.encodeWithSelector(IServiceMarketplace.CredentialNotFound.selector, perQuery, renter),
            perQuery,
            renter
        );
    }

    function test_RevertWhen_CredentialRevoked() public {
        _buySubscription(renter, subscription, 30 days);
        vm.prank(creator);
        market.revokeAccess(subscription, renter);
        _expectRefusal(
            abi.encodeWithSelector(IServiceMarketplace.CredentialRevoked.selector, subscription, renter),
            subscription,
            renter
        );
    }

    function test_RevertWhen_SubscriptionExpired_NamesWhen() public {
        _buySubscription(renter, subscription, 30 days);
        vm.warp(START + 30 days);
        _expectRefusal(
            abi.encodeWithSelector(
                IServiceMarketplace.CredentialExpired.selector, subscription, renter, START + 30 days
            ),
            subscription,
            renter
        );
    }

    function test_RevertWhen_BalanceShort_NamesTheBalanceAndTheNextDebit() public {
        _buyPerQuery(renter, perQuery, PRICE + PRICE / 2);
        _consume(perQuery, renter, 1);
        _expectRefusal(
            abi.encodeWithSelector(IServiceMarketplace.InsufficientBalance.selector, PRICE / 2, PRICE),
            perQuery,
            renter
        );
    }

    function test_RevertWhen_BalanceShort_TheNextDebitIsTheAgreedPriceAfterARaise() public {
        _buyPerQuery(renter, perQuery, PRICE);
        _consume(perQuery, renter, 1);
        vm.prank(creator);
        market.updateListing(perQuery, PRICE * 2, URI);
        _expectRefusal(
            abi.encodeWithSelector(IServiceMarketplace.InsufficientBalance.selector, 0, PRICE),
            perQuery,
            renter
        );
    }

    // ─── Every state ──────────────────────────────────────────────────────────

    /// @dev Builds a credential state through real calls (any model; bought or not; runs debited; price
    /// moved; revoked; listing active, paused, closed or unknown; time passed), then checks `requireAccess`
    /// against the access rule and `getAccessState`.
    function testFuzz_requireAccess_IsTheAccessRuleOverGetAccessState(
        uint8 modelIndex,
        bool bought,
        uint256 durationIndex,
        uint256 deposit,
        uint8 runs,
        uint256 newPrice,
        bool revoke,
        uint8 statusIndex,
        uint256 elapsed
    ) public {
        IServiceMarketplace.RentalModel model = IServiceMarketplace.RentalModel(modelIndex % 3);
        bytes32 id = model == ONE_TIME ? oneTime : model == SUBSCRIPTION ? subscription : perQuery;
        if (bought) _buy(id, model, durationIndex, deposit, runs);
        vm.prank(creator);
        market.updateListing(id, uint96(bound(newPrice, MIN_PRICE, 10 * PRICE)), URI);
        if (bought && revoke) {
            vm.prank(creator);
            if (model == PER_QUERY) market.revokePerQueryAccess(id, renter);
            else market.revokeAccess(id, renter);
        }
        uint8 status = statusIndex % 4;
        if (status == 1) _pauseListing(id);
        if (status == 2) {
            _withdrawAll(id);
            _close(id);
        }
        if (status == 3) id = UNKNOWN;
        vm.warp(block.timestamp + bound(elapsed, 0, 400 days));

        _assertRequireAccessFollowsTheRule(market, id, renter);
    }

    function _buy(
        bytes32 id,
        IServiceMarketplace.RentalModel model,
        uint256 durationIndex,
        uint256 deposit,
        uint8 runs
    ) internal {
        if (model == ONE_TIME) return _buyOneTime(renter, id);
        if (model == SUBSCRIPTION) {
            uint256 i = durationIndex % 3;
            return _buySubscription(renter, id, i == 0 ? 30 days : i == 1 ? 90 days : 365 days);
        }
        _buyPerQuery(renter, id, bound(deposit, PRICE, 5 * PRICE));
        for (uint256 run = 1; run <= runs % 8 && _balance(id, renter) >= PRICE; ++run) {
            _consume(id, renter, run);
        }
    }
}
