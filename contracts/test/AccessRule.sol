// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {StdAssertions} from "forge-std/StdAssertions.sol";
import {IServiceMarketplace} from "../src/interfaces/IServiceMarketplace.sol";

/// @notice The rule the API applies to `getAccessState` before a run (api/execution/accessRefusal.ts), written
/// independently of the contract: the listing first, then the credential.
library AccessRule {
    /// @dev The revert data `requireAccess` must give for `state` at `nowSeconds`; empty when the run may start.
    function refusal(
        bytes32 listingId,
        address buyer,
        IServiceMarketplace.AccessState memory state,
        uint256 nowSeconds
    ) internal pure returns (bytes memory) {
        if (state.listingStatus == IServiceMarketplace.ListingStatus.None) {
            return abi.encodeWithSelector(IServiceMarketplace.ListingNotFound.selector, listingId);
        }
        if (state.listingStatus != IServiceMarketplace.ListingStatus.Active) {
            return abi.encodeWithSelector(IServiceMarketplace.ListingNotActive.selector, listingId);
        }
        if (!state.hasCredential) {
            return abi.encodeWithSelector(IServiceMarketplace.CredentialNotFound.selector, listingId, buyer);
        }
        if (state.isRevoked) {
            return abi.encodeWithSelector(IServiceMarketplace.CredentialRevoked.selector, listingId, buyer);
        }
        if (state.reclaimableAt != 0) {
            return abi.encodeWithSelector(
                IServiceMarketplace.ExitPending.selector, listingId, buyer, state.reclaimableAt
            );
        }
        if (state.model == IServiceMarketplace.RentalModel.Subscription && state.expiresAt <= nowSeconds) {
            return abi.encodeWithSelector(
                IServiceMarketplace.CredentialExpired.selector, listingId, buyer, state.expiresAt
            );
        }
        if (state.model == IServiceMarketplace.RentalModel.PerQuery) {
            uint256 nextDebit = state.agreedPrice < state.price ? state.agreedPrice : state.price;
            if (state.balance < nextDebit) {
                return abi.encodeWithSelector(
                    IServiceMarketplace.InsufficientBalance.selector, state.balance, nextDebit
                );
            }
        }
        return "";
    }

    /// @dev What `requireAccess` must agree with: a valid credential on an active listing. A paused listing's
    /// credentials stay valid (a run already started settles) but start no run.
    function mayRun(IServiceMarketplace.AccessState memory state) internal pure returns (bool) {
        return state.isValid && state.listingStatus == IServiceMarketplace.ListingStatus.Active;
    }
}

/// @notice Holds `requireAccess` to the access rule, for the tests that check it in every state they reach.
abstract contract AccessRuleAssertions is StdAssertions {
    /// @dev `requireAccess` refuses `buyer` on `listingId` with the rule's error over `getAccessState`, and lets
    /// run exactly a valid credential on an active listing.
    function _assertRequireAccessFollowsTheRule(IServiceMarketplace market, bytes32 listingId, address buyer)
        internal
        view
    {
        IServiceMarketplace.AccessState memory state = market.getAccessState(listingId, buyer);
        bytes memory expected = AccessRule.refusal(listingId, buyer, state, block.timestamp);
        try market.requireAccess(listingId, buyer) {
            assertEq(expected, "", "ran where the rule refuses");
            assertTrue(
                AccessRule.mayRun(state), "ran where getAccessState is invalid or the listing inactive"
            );
        } catch (bytes memory refusal) {
            assertEq(refusal, expected, "refused with another error than the rule's");
            assertFalse(AccessRule.mayRun(state), "refused a valid credential on an active listing");
        }
    }
}
