// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title IServiceMarketplace
/// @notice Rental credentials for AI agents, paid in ETH: one-time, subscription and prepaid per-task.
interface IServiceMarketplace {
    enum RentalModel {
        OneTime,
        Subscription,
        PerQuery
    }

    enum ListingStatus {
        None,
        Active,
        Paused,
        Closed
    }

    /// @dev Two storage slots: who may manage it and its price; then everything a sale or a run updates
    /// (escrow, the protocol fees it accrued, model, status), so each touches one slot for writing.
    struct Listing {
        address creator;
        uint96 price;
        uint112 escrow;
        uint112 accruedFees;
        RentalModel model;
        ListingStatus status;
    }

    /// @dev A one-time or subscription credential; `expiresAt` is 0 for one-time.
    struct AccessCredential {
        address buyer;
        uint40 purchasedAt;
        uint40 expiresAt;
        bool isRevoked;
    }

    /// @dev A prepaid per-task balance, in one slot; `purchasedAt` is 0 when none was ever bought. A run
    /// debits the lower of `agreedPrice`, the listing's price at the renter's last deposit, and the
    /// listing's current price (never more than its price at admission, `consumeQuery`'s `maxPrice`): a
    /// price raise reaches a balance only through the renter's next deposit. `isExiting` is set from the
    /// renter's `requestExit` until its reclaim or its next deposit; the exit's time lives apart
    /// (`exitReclaimableAt`), read only when the flag is set.
    struct PerQueryBalance {
        uint96 balance;
        uint96 agreedPrice;
        uint40 purchasedAt;
        bool isRevoked;
        bool isExiting;
    }

    /// @notice Everything an execution check needs, read in one call. `price` is the listing's; for a
    /// per-task credential the next run costs the lower of it and `agreedPrice`.
    struct AccessState {
        ListingStatus listingStatus;
        RentalModel model;
        uint256 price;
        bool hasCredential;
        bool isRevoked;
        uint40 purchasedAt;
        uint40 expiresAt;
        uint256 balance;
        uint256 agreedPrice;
        bool isValid;
        /// @dev Per-task only: when the renter may reclaim the balance it asked back with `requestExit`;
        /// 0 when no exit is pending. A balance being exited starts no run.
        uint40 reclaimableAt;
    }

    /// @notice One run to debit from `buyer`'s per-task balance on `listingId`, at most `maxPrice`: the price
    /// the run was admitted at (see `consumeQuery`). `succeeded` is the run's outcome: a run that failed after
    /// its output reached the renter is charged too, and its `QueryConsumed` says it failed.
    struct Debit {
        bytes32 listingId;
        address buyer;
        uint256 runId;
        uint256 maxPrice;
        bool succeeded;
    }

    /// @notice One listing's runs counted by an anchor: `runs` finished runs, of which `failed` failed.
    struct RunCount {
        bytes32 listingId;
        uint32 runs;
        uint32 failed;
    }

    // ─── Errors ───────────────────────────────────────────────────────────────

    /// @notice Thrown when a listing is paused or closed for the operation.
    error ListingNotActive(bytes32 listingId);
    /// @notice Thrown when no listing exists at the id.
    error ListingNotFound(bytes32 listingId);
    /// @notice Thrown when the creator already used the seed.
    error ListingAlreadyExists(bytes32 listingId);
    /// @notice Thrown when the wallet holds no credential for the listing.
    error CredentialNotFound(bytes32 listingId, address buyer);
    /// @notice Thrown when the wallet already holds a credential for the listing.
    error CredentialAlreadyExists(bytes32 listingId, address buyer);
    /// @notice Thrown when a per-task balance cannot cover one run.
    error InsufficientBalance(uint256 balance, uint256 price);
    /// @notice Thrown when the caller is not permitted.
    error Unauthorized(address caller);
    /// @notice Thrown when the operation does not match the listing's rental model.
    error InvalidAccessType(RentalModel model);
    /// @notice Thrown when the creator revoked the credential.
    error CredentialRevoked(bytes32 listingId, address buyer);
    /// @notice Thrown when a subscription's credential expired at `expiredAt` and may not run.
    error CredentialExpired(bytes32 listingId, address buyer, uint256 expiredAt);
    /// @notice Thrown when a withdrawal exceeds the available amount.
    error WithdrawalExceedsBalance(uint256 requested, uint256 available);
    /// @notice Thrown when the fee is above the 10% cap.
    error FeeTooHigh(uint256 feeBasisPoints, uint256 maxFeeBasisPoints);
    /// @notice Thrown when a price is below 0.000001 ETH.
    error PriceTooLow(uint256 price, uint256 minPrice);
    /// @notice Thrown when a metadata URI is above 200 bytes.
    error MetadataUriTooLong(uint256 length, uint256 maxLength);
    /// @notice Thrown when a metadata URI is empty.
    error MetadataUriEmpty();
    /// @notice Thrown when a subscription duration is not 30, 90 or 365 days.
    error InvalidDuration(uint256 duration);
    /// @notice Thrown when a deposit cannot cover one task.
    error DepositTooLow(uint256 deposit, uint256 price);
    /// @notice Thrown when a per-task price is above the most the renter accepted for a deposit.
    error PriceAboveLimit(uint256 price, uint256 maxPrice);
    /// @notice Thrown when the protocol is paused.
    error ProtocolPaused();
    /// @notice Thrown when closing a listing whose escrow holds funds.
    error EscrowNotEmpty(uint256 escrow);
    /// @notice Thrown when there is nothing to withdraw.
    error NothingToWithdraw();
    /// @notice Thrown when the ETH sent differs from the price.
    error IncorrectPayment(uint256 sent, uint256 required);
    /// @notice Thrown when an ETH transfer out of the contract fails.
    error TransferFailed(address to, uint256 amount);
    /// @notice Thrown when the zero address is given where a real one is required.
    error ZeroAddress();
    /// @notice Thrown on a reentrant call.
    error Reentrancy();
    /// @notice Thrown when a run id was already settled, so a replay never debits twice.
    error RunAlreadyRecorded(uint256 runId);
    /// @notice Thrown when the renter asked for its per-task balance back (`requestExit`): the balance starts
    /// no run, is not reclaimable before `reclaimableAt`, and takes no debit from then on.
    error ExitPending(bytes32 listingId, address buyer, uint256 reclaimableAt);
    /// @notice Thrown when `withdrawAndClose` is called on a listing that is not paused.
    error ListingNotPaused(bytes32 listingId);
    /// @notice Thrown when `settle` is given counts without a root, or a count with more failed runs than runs.
    error InvalidAnchor();

    // ─── Events ───────────────────────────────────────────────────────────────

    /// @notice Emitted when a creator lists an agent.
    event ListingCreated(
        bytes32 indexed listingId,
        address indexed creator,
        RentalModel model,
        uint256 price,
        string metadataUri
    );
    /// @notice Emitted when a creator changes a listing's price or metadata.
    event ListingUpdated(bytes32 indexed listingId, uint256 price, string metadataUri);
    /// @notice Emitted when a listing is paused, reactivated or closed.
    event ListingStatusChanged(bytes32 indexed listingId, ListingStatus status);
    /// @notice Emitted when a renter buys one-time or subscription access.
    event AccessPurchased(
        bytes32 indexed listingId,
        address indexed buyer,
        RentalModel model,
        uint256 amount,
        uint256 fee,
        uint40 expiresAt
    );
    /// @notice Emitted when a subscription is extended.
    event SubscriptionRenewed(
        bytes32 indexed listingId, address indexed buyer, uint256 amount, uint256 fee, uint40 expiresAt
    );
    /// @notice Emitted when a renter opens a per-task balance at `agreedPrice` per task.
    event PerQueryPurchased(
        bytes32 indexed listingId, address indexed buyer, uint256 amount, uint256 agreedPrice
    );
    /// @notice Emitted when a renter adds to a per-task balance, agreeing to `agreedPrice` per task.
    event BalanceToppedUp(
        bytes32 indexed listingId, address indexed buyer, uint256 amount, uint256 balance, uint256 agreedPrice
    );
    /// @notice Emitted when one run is debited from a per-task balance, at `price`; `succeeded` is the run's
    /// outcome (a charged run may have failed after its output reached the renter): each counts one run of the
    /// listing, which no `RunsAnchored` counts again.
    event QueryConsumed(
        bytes32 indexed listingId,
        address indexed buyer,
        uint256 indexed runId,
        uint256 price,
        uint256 fee,
        uint256 balance,
        bool succeeded
    );
    /// @notice Emitted for each debit of a `consumeQueries` batch that was skipped, charging nothing; `reason` is
    /// the selector of the error `consumeQuery` would have reverted with (e.g. `CredentialRevoked`).
    event QueryNotConsumed(
        bytes32 indexed listingId, address indexed buyer, uint256 indexed runId, bytes4 reason
    );
    /// @notice Emitted when `settle` anchors `root`, the Merkle root of a batch of run receipts, once per root.
    /// `counts` cover the batch's runs no `QueryConsumed` counted (uncharged runs), so an indexer adding both
    /// never counts a run twice; a listing id it does not know is to be ignored.
    event RunsAnchored(bytes32 indexed root, RunCount[] counts);
    /// @notice Emitted when a creator revokes a one-time or subscription credential.
    event AccessRevoked(bytes32 indexed listingId, address indexed buyer);
    /// @notice Emitted when a creator revokes a per-task balance; the renter may reclaim what is left.
    event PerQueryAccessRevoked(bytes32 indexed listingId, address indexed buyer, uint256 balance);
    /// @notice Emitted when a renter asks for its per-task `balance` back: runs in flight may still be debited
    /// until `reclaimableAt`, from which the renter may reclaim what is left.
    event ExitRequested(
        bytes32 indexed listingId, address indexed buyer, uint256 balance, uint40 reclaimableAt
    );
    /// @notice Emitted when a renter takes back an unspent balance: of a revoked credential, a closed listing
    /// or an exit that came due. It ends the exit.
    event BalanceReclaimed(bytes32 indexed listingId, address indexed buyer, uint256 amount);
    /// @notice Emitted when a creator withdraws escrowed earnings.
    event EarningsWithdrawn(bytes32 indexed listingId, address indexed creator, uint256 amount);
    /// @notice Emitted when the fee recipient collects the protocol fees accrued on `listingIds`.
    event FeesWithdrawn(address indexed recipient, uint256 amount, bytes32[] listingIds);
    /// @notice Emitted when the protocol fee changes.
    event FeeBasisPointsUpdated(uint256 previousFeeBasisPoints, uint256 feeBasisPoints);
    /// @notice Emitted when the fee recipient changes.
    event FeeRecipientUpdated(address indexed previousRecipient, address indexed recipient);
    /// @notice Emitted when the protocol is paused or unpaused.
    event PausedSet(bool paused);
    /// @notice Emitted when the protocol authority changes.
    event AuthorityTransferred(address indexed previousAuthority, address indexed authority);
    /// @notice Emitted when the authority names a new operator, the key that debits and anchors runs.
    event OperatorChanged(address indexed previousOperator, address indexed operator);
    /// @notice Emitted when the authority names the key that signs run receipts (`receiptsSigner`).
    event ReceiptsSignerChanged(address indexed previousSigner, address indexed newSigner);

    // ─── Creators ─────────────────────────────────────────────────────────────

    /// @notice Lists an agent at `deriveListingId(msg.sender, seed)`.
    /// @param price Wei per purchase (one-time), per 30 days (subscription) or per task (per-query).
    function createListing(bytes32 seed, RentalModel model, uint96 price, string calldata metadataUri)
        external
        returns (bytes32 listingId);

    /// @notice Changes price and metadata of an open listing; existing credentials are untouched, a per-task
    /// balance pays a higher price only after its renter's next deposit, and a run already admitted never.
    function updateListing(bytes32 listingId, uint96 price, string calldata metadataUri) external;

    /// @notice Pauses (no new rentals; the service refuses executions) or reactivates a listing.
    function setListingActive(bytes32 listingId, bool active) external;

    /// @notice Closes a listing for good; every credential becomes invalid. Escrow must be empty.
    function closeListing(bytes32 listingId) external;

    /// @notice Revokes a one-time or subscription credential.
    function revokeAccess(bytes32 listingId, address buyer) external;

    /// @notice Revokes a per-task credential; its unspent balance stays the renter's to reclaim.
    function revokePerQueryAccess(bytes32 listingId, address buyer) external;

    /// @notice Sends `amount` of the listing's escrow to its creator.
    function withdrawEarnings(bytes32 listingId, uint256 amount) external;

    /// @notice Sends a paused listing's whole escrow to its creator and closes it, in one transaction, so no
    /// debit landing in between can leave escrow behind (`closeListing` would revert `EscrowNotEmpty`). A
    /// paused listing takes no purchase, so nobody buys access the close ends at once.
    function withdrawAndClose(bytes32 listingId) external;

    // ─── Renters ──────────────────────────────────────────────────────────────

    /// @notice Buys permanent access; `msg.value` must equal the price.
    function purchaseOneTime(bytes32 listingId) external payable;

    /// @notice Buys access for `duration` seconds (30, 90 or 365 days); `msg.value` must equal the quote.
    function purchaseSubscription(bytes32 listingId, uint256 duration) external payable;

    /// @notice Opens a prepaid per-task balance of `msg.value`, at least one task's price; the renter agrees
    /// to the listing's current price, the most any run will debit from it, if it is at most `maxPrice`
    /// (a price raised after the renter looked cannot slip into the agreement).
    function purchasePerQuery(bytes32 listingId, uint256 maxPrice) external payable;

    /// @notice Extends a subscription by `duration` from the later of now and its expiry.
    function renewSubscription(bytes32 listingId, uint256 duration) external payable;

    /// @notice Adds `msg.value`, at least one task's price, to a per-task balance; the renter agrees to the
    /// listing's current price for the whole balance, if it is at most `maxPrice`. It ends a pending exit:
    /// the renter stays.
    function topUpBalance(bytes32 listingId, uint256 maxPrice) external payable;

    /// @notice Asks for the per-task balance back, whatever the listing's state (paused, abandoned) and the
    /// protocol's: from now on it starts no run, runs already in flight may still be debited for
    /// `EXIT_DELAY`, and from then on nothing more is debited and `reclaimBalance` returns what is left.
    function requestExit(bytes32 listingId) external;

    /// @notice Returns the unspent per-task balance of a revoked credential, a closed listing, or an exit
    /// requested at least `EXIT_DELAY` ago.
    function reclaimBalance(bytes32 listingId) external;

    // ─── Protocol operator ────────────────────────────────────────────────────
    // The operator is the hot key on the API servers: it may only debit and anchor runs. The authority may
    // do both too, and alone administers the protocol.

    /// @notice Debits one run from a per-task balance, at the lowest of the price its renter agreed to, the
    /// listing's current price and `maxPrice`; each run id settles once. A refusal for a short balance
    /// (`InsufficientBalance`) names that same price.
    /// @param maxPrice The most the run may cost: its price when it was admitted (the lower of the agreed and
    /// the current price then), so a raise between admission and debit never reaches a run already started,
    /// while a cut since still does.
    /// @param succeeded The run's outcome, carried by `QueryConsumed`: a run is charged once its output reached
    /// the renter, even if it failed afterwards, and its failure is then counted by this event alone, never
    /// by an anchor's counts.
    function consumeQuery(bytes32 listingId, address buyer, uint256 runId, uint256 maxPrice, bool succeeded)
        external;

    /// @notice Debits a batch of runs, each exactly as `consumeQuery` would, in order. A debit `consumeQuery`
    /// would revert (a settled run id, a revoked credential, a balance whose exit came due, a short balance, a
    /// closed or unknown listing) is skipped with `QueryNotConsumed` instead of failing the batch; a paused
    /// protocol reverts the whole batch.
    function consumeQueries(Debit[] calldata debits) external;

    /// @notice Debits `debits` exactly as `consumeQueries` does (a paused protocol reverts the call when there
    /// are any), then anchors `root`: the Merkle root whose leaves are the EIP-712 struct hashes of run
    /// receipts signed by `receiptsSigner` (docs/receipts.md). `counts` cover the batch's runs no
    /// `QueryConsumed` counted, so an indexer adding both never counts a run twice; they are not checked
    /// against listings. A zero root anchors nothing and takes no counts; a root already anchored is skipped
    /// silently, its debits still made, so resending a settlement whose receipt was lost is harmless.
    /// Anchoring alone is allowed while the protocol is paused.
    function settle(Debit[] calldata debits, bytes32 root, RunCount[] calldata counts) external;

    // ─── Protocol authority ───────────────────────────────────────────────────

    /// @notice Names the operator; the previous one is refused from the next call on. The zero address
    /// leaves debits and anchors to the authority alone, e.g. until a leaked key is replaced.
    function setOperator(address operator) external;

    /// @notice Sets the protocol fee on sales and debits from now on, at most `MAX_FEE_BASIS_POINTS`.
    function setFeeBasisPoints(uint256 feeBasisPoints) external;

    /// @notice Names the address that collects protocol fees.
    function setFeeRecipient(address recipient) external;

    /// @notice Stops or restarts money coming in and runs being charged; exits stay open.
    function setPaused(bool paused) external;

    /// @notice Names the key that signs run receipts from now on, the one verifiers read from `receiptsSigner`.
    function setReceiptsSigner(address signer) external;

    /// @notice Hands the authority over in one step.
    function transferAuthority(address authority) external;

    /// @notice Sends the protocol fees accrued on `listingIds` to the fee recipient; callable by the recipient.
    function withdrawFees(bytes32[] calldata listingIds) external;

    // ─── Views ────────────────────────────────────────────────────────────────

    function deriveListingId(address creator, bytes32 seed) external pure returns (bytes32);

    /// @notice True when the credential exists, is not revoked, is unexpired (subscription) or covers the
    /// next run's debit with no exit pending (per-query), and the listing is not closed.
    function isCredentialValid(bytes32 listingId, address buyer) external view returns (bool);

    /// @notice Listing status, rental model, price and the caller's credential in one read.
    function getAccessState(bytes32 listingId, address buyer) external view returns (AccessState memory);

    /// @notice Returns when `buyer` may start a run on `listingId`, else reverts with why not: `ListingNotFound`,
    /// `ListingNotActive` (paused or closed), `CredentialNotFound`, `CredentialRevoked`, `ExitPending` (the renter
    /// asked its per-task balance back), `CredentialExpired` or `InsufficientBalance` (the balance and the next
    /// run's debit). It succeeds iff `getAccessState` is valid
    /// and the listing active: a paused listing's credentials stay valid (a run already started may settle),
    /// but start no run.
    function requireAccess(bytes32 listingId, address buyer) external view;

    /// @notice Wei due for a subscription of `duration` seconds.
    function subscriptionQuote(bytes32 listingId, uint256 duration) external view returns (uint256);

    function listings(bytes32 listingId)
        external
        view
        returns (
            address creator,
            uint96 price,
            uint112 escrow,
            uint112 accruedFees,
            RentalModel model,
            ListingStatus status
        );

    function credentials(bytes32 listingId, address buyer)
        external
        view
        returns (address buyer_, uint40 purchasedAt, uint40 expiresAt, bool isRevoked);

    function perQueryBalances(bytes32 listingId, address buyer)
        external
        view
        returns (uint96 balance, uint96 agreedPrice, uint40 purchasedAt, bool isRevoked, bool isExiting);

    /// @notice When `buyer` may reclaim the balance it asked back with `requestExit`; 0 when no exit pends.
    function exitReclaimableAt(bytes32 listingId, address buyer) external view returns (uint40);

    /// @notice How long after `requestExit` runs in flight may still be debited before the renter reclaims.
    function EXIT_DELAY() external view returns (uint256);

    /// @notice True when the run id was debited (each settles once).
    function isRunRecorded(uint256 runId) external view returns (bool);

    /// @notice The block `root` was anchored in by `settle`; 0 if never.
    function anchoredAt(bytes32 root) external view returns (uint256);

    /// @notice The key that signs run receipts, whose batches `settle` anchors.
    function receiptsSigner() external view returns (address);

    function authority() external view returns (address);

    function operator() external view returns (address);

    function feeRecipient() external view returns (address);

    function feeBasisPoints() external view returns (uint256);

    function paused() external view returns (bool);
}
