// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {BaseTest} from "./Base.t.sol";
import {IServiceMarketplace} from "../src/interfaces/IServiceMarketplace.sol";

/// @notice Finding "hot key split": the key on the API servers (the operator) debits and anchors runs and
/// nothing else; the authority administers, names the operator and may debit too.
contract HotKeySplitTest is BaseTest {
    address internal nextOperator = makeAddr("nextOperator");
    bytes32 internal constant ROOT = keccak256("receipts root");

    function setUp() public override {
        super.setUp();
        _buyPerQuery(renter, perQuery, PRICE * 10);
    }

    function test_finding_OperatorCannotAdminister() public {
        bytes memory refused = abi.encodeWithSelector(IServiceMarketplace.Unauthorized.selector, operator);
        _buyOneTime(renter, oneTime);
        bytes32[] memory ids = new bytes32[](1);
        ids[0] = oneTime;

        vm.startPrank(operator);
        vm.expectRevert(refused);
        market.setOperator(operator);
        vm.expectRevert(refused);
        market.setOperator(nextOperator);
        vm.expectRevert(refused);
        market.setFeeBasisPoints(MAX_FEE_BPS);
        vm.expectRevert(refused);
        market.setFeeRecipient(operator);
        vm.expectRevert(refused);
        market.setPaused(true);
        vm.expectRevert(refused);
        market.setReceiptsSigner(operator);
        vm.expectRevert(refused);
        market.transferAuthority(operator);
        vm.expectRevert(refused);
        market.withdrawFees(ids);
        vm.stopPrank();

        assertEq(market.authority(), authority);
        assertEq(market.operator(), operator);
        assertEq(market.feeBasisPoints(), DEFAULT_FEE_BPS);
        assertEq(market.feeRecipient(), feeRecipient);
        assertEq(market.receiptsSigner(), receiptsSigner);
        assertFalse(market.paused());
        assertEq(_fees(oneTime), _fee(PRICE));
    }

    function test_operator_DebitsAndAnchorsRuns() public {
        vm.startPrank(operator);
        market.consumeQuery(perQuery, renter, 1, PRICE, true);
        _anchor(ROOT);
        vm.stopPrank();

        assertEq(_balance(perQuery, renter), PRICE * 9);
        assertTrue(market.isRunRecorded(1));
        assertEq(market.anchoredAt(ROOT), block.number);
    }

    function test_authority_MayAlsoDebitAndAnchorRuns() public {
        vm.startPrank(authority);
        market.consumeQuery(perQuery, renter, 1, PRICE, true);
        _anchor(ROOT);
        vm.stopPrank();

        assertEq(_balance(perQuery, renter), PRICE * 9);
        assertEq(market.anchoredAt(ROOT), block.number);
    }

    function test_finding_RotatingTheOperatorTakesEffectAtOnce() public {
        vm.expectEmit(address(market));
        emit IServiceMarketplace.OperatorChanged(operator, nextOperator);
        vm.prank(authority);
        market.setOperator(nextOperator);
        assertEq(market.operator(), nextOperator);

        // In the same block: the old key is refused at its very next call, the new one is accepted.
        bytes memory refused = abi.encodeWithSelector(IServiceMarketplace.Unauthorized.selector, operator);
        vm.startPrank(operator);
        vm.expectRevert(refused);
        market.consumeQuery(perQuery, renter, 1, PRICE, true);
        vm.expectRevert(refused);
        _anchor(ROOT);
        vm.stopPrank();
        assertEq(market.anchoredAt(ROOT), 0);

        vm.startPrank(nextOperator);
        market.consumeQuery(perQuery, renter, 1, PRICE, true);
        _anchor(ROOT);
        vm.stopPrank();
        assertEq(_balance(perQuery, renter), PRICE * 9);
        assertEq(market.anchoredAt(ROOT), block.number);
    }

    function test_setOperator_ZeroAddressLeavesRunsToTheAuthority() public {
        vm.expectEmit(address(market));
        emit IServiceMarketplace.OperatorChanged(operator, address(0));
        vm.prank(authority);
        market.setOperator(address(0));

        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.Unauthorized.selector, operator));
        vm.prank(operator);
        market.consumeQuery(perQuery, renter, 1, PRICE, true);
        _consumeAs(authority, 1);
        assertEq(_balance(perQuery, renter), PRICE * 9);
    }

    function test_setOperator_RevertWhen_Unauthorized() public {
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.Unauthorized.selector, creator));
        vm.prank(creator);
        market.setOperator(creator);
        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.Unauthorized.selector, feeRecipient));
        vm.prank(feeRecipient);
        market.setOperator(feeRecipient);
        assertEq(market.operator(), operator);
    }

    function test_transferAuthority_KeepsTheOperator() public {
        vm.prank(authority);
        market.transferAuthority(stranger);
        assertEq(market.operator(), operator);
        _consumeAs(operator, 1);

        vm.expectRevert(abi.encodeWithSelector(IServiceMarketplace.Unauthorized.selector, authority));
        vm.prank(authority);
        market.setOperator(nextOperator);
        vm.prank(stranger);
        market.setOperator(nextOperator);
        _consumeAs(nextOperator, 2);
        assertEq(_balance(perQuery, renter), PRICE * 8);
    }

    function _consumeAs(address caller, uint256 runId) internal {
        vm.prank(caller);
        market.consumeQuery(perQuery, renter, runId, PRICE, true);
    }

    /// @dev Anchors `root` alone, counting one uncharged run of the one-time listing.
    function _anchor(bytes32 root) internal {
        IServiceMarketplace.RunCount[] memory counts = new IServiceMarketplace.RunCount[](1);
        counts[0] = IServiceMarketplace.RunCount(oneTime, 1, 0);
        market.settle(new IServiceMarketplace.Debit[](0), root, counts);
    }
}
