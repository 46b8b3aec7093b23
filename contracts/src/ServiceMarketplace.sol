// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {IServiceMarketplace} from "./interfaces/IServiceMarketplace.sol";

/// @title ServiceMarketplace
/// @notice Sells rental credentials for AI agents. Creator earnings and protocol fees stay in the contract
/// until pulled; per-task deposits stay renter balances until a run is debited.
contract ServiceMarketplace is IServiceMarketplace {
    uint256 public constant MAX_FEE_BASIS_POINTS = 1000;
    uint16 public constant DEFAULT_FEE_BASIS_POINTS = 250;
    uint256 public constant MIN_PRICE = 0.000001 ether;
    uint256 public constant MAX_METADATA_URI_LENGTH = 200;
    uint256 public constant SUBSCRIPTION_PERIOD = 30 days;
    /// @dev From a renter's `requestExit` to its reclaim: runs in flight settle in minutes; two days also
    /// cover a settlement outage an operator needs a working day to mend (docs/decisions.md).
    uint256 public constant EXIT_DELAY = 2 days;
    uint256 private constant BASIS_POINTS = 10_000;

    /// @dev One slot read by every sale and every debit: the operator (the hot key that debits and anchors
    /// runs), the fee, the pause switch. The authority, read only to administer, lives apart.
    struct Config {
        address operator;
        uint16 feeBasisPoints;
        bool paused;
    }

    Config private _config;
    address public authority;
    address public feeRecipient;
    /// @dev Read off-chain only, to check receipts: it stays out of the hot `_config` slot.
    address public receiptsSigner;

    mapping(bytes32 listingId => Listing) public listings;
    mapping(bytes32 listingId => mapping(address buyer => AccessCredential)) public credentials;
    mapping(bytes32 listingId => mapping(address buyer => PerQueryBalance)) public perQueryBalances;
    mapping(bytes32 listingId => mapping(address buyer => uint40 reclaimableAt)) public exitReclaimableAt;
    /// @dev Settled run ids as a bitmap: sequential ids share a word, so settling costs a warm write.
    mapping(uint256 word => uint256 bits) private _recordedRuns;
    mapping(bytes32 root => uint256 blockNumber) public anchoredAt;

    bool private transient _locked;

    modifier nonReentrant() {
        if (_locked) revert Reentrancy();
        _locked = true;
        _;
        _locked = false;
    }

    modifier onlyAuthority() {
        if (msg.sender != authority) revert Unauthorized(msg.sender);
        _;
    }

    constructor(address authority_, address operator_, address feeRecipient_, address receiptsSigner_) {
        if (
            authority_ == address(0) || operator_ == address(0) || feeRecipient_ == address(0)
                || receiptsSigner_ == address(0)
        ) {
            revert ZeroAddress();
        }
        _config = Config({operator: operator_, feeBasisPoints: DEFAULT_FEE_BASIS_POINTS, paused: false});
        authority = authority_;
        feeRecipient = feeRecipient_;
        receiptsSigner = receiptsSigner_;
        // The initial configuration as events too, so an indexer starting at this block knows it.
        emit AuthorityTransferred(address(0), authority_);
        emit OperatorChanged(address(0), operator_);
        emit FeeRecipientUpdated(address(0), feeRecipient_);
        emit FeeBasisPointsUpdated(0, DEFAULT_FEE_BASIS_POINTS);
        emit ReceiptsSignerChanged(address(0), receiptsSigner_);
    }

    // ─── Creators ─────────────────────────────────────────────────────────────

    function createListing(bytes32 seed, RentalModel model, uint96 price, string calldata metadataUri)
        external
        returns (bytes32 listingId)
    {
        _requireNotPaused();
        _requireValidTerms(price, metadataUri);
        listingId = deriveListingId(msg.sender, seed);
        Listing storage listing = listings[listingId];
        if (listing.creator != address(0)) revert ListingAlreadyExists(listingId);

        listing.creator = msg.sender;
        listing.price = price;
        listing.model = model;
        listing.status = ListingStatus.Active;
        emit ListingCreated(listingId, msg.sender, model, price, metadataUri);
    }

    function updateListing(bytes32 listingId, uint96 price, string calldata metadataUri) external {
        Listing storage listing = _creatorListing(listingId);
        if (listing.status == ListingStatus.Closed) revert ListingNotActive(listingId);
        _requireValidTerms(price, metadataUri);

        listing.price = price;
        emit ListingUpdated(listingId, price, metadataUri);
    }

    function setListingActive(bytes32 listingId, bool active) external {
        Listing storage listing = _creatorListing(listingId);
        if (listing.status == ListingStatus.Closed) revert ListingNotActive(listingId);

        ListingStatus status = active ? ListingStatus.Active : ListingStatus.Paused;
        listing.status = status;
        emit ListingStatusChanged(listingId, status);
    }

    function closeListing(bytes32 listingId) external {
        Listing storage listing = _creatorListing(listingId);
        if (listing.status == ListingStatus.Closed) revert ListingNotActive(listingId);
        if (listing.escrow != 0) revert EscrowNotEmpty(listing.escrow);

        listing.status = ListingStatus.Closed;
        emit ListingStatusChanged(listingId, ListingStatus.Closed);
    }

    function revokeAccess(bytes32 listingId, address buyer) external {
        Listing storage listing = _creatorListing(listingId);
        if (listing.model == RentalModel.PerQuery) revert InvalidAccessType(listing.model);
        AccessCredential storage credential = credentials[listingId][buyer];
        if (credential.purchasedAt == 0) revert CredentialNotFound(listingId, buyer);
        if (credential.isRevoked) revert CredentialRevoked(listingId, buyer);

        credential.isRevoked = true;
        emit AccessRevoked(listingId, buyer);
    }

    function revokePerQueryAccess(bytes32 listingId, address buyer) external {
        Listing storage listing = _creatorListing(listingId);
        if (listing.model != RentalModel.PerQuery) revert InvalidAccessType(listing.model);
        PerQueryBalance storage record = perQueryBalances[listingId][buyer];
        if (record.purchasedAt == 0) revert CredentialNotFound(listingId, buyer);
        if (record.isRevoked) revert CredentialRevoked(listingId, buyer);

        record.isRevoked = true;
        emit PerQueryAccessRevoked(listingId, buyer, record.balance);
    }

    function withdrawEarnings(bytes32 listingId, uint256 amount) external nonReentrant {
        Listing storage listing = _creatorListing(listingId);
        uint256 escrow = listing.escrow;
        if (amount == 0 || escrow == 0) revert NothingToWithdraw();
        if (amount > escrow) revert WithdrawalExceedsBalance(amount, escrow);

        listing.escrow = uint112(escrow - amount);
        emit EarningsWithdrawn(listingId, msg.sender, amount);
        _sendEth(msg.sender, amount);
    }

    function withdrawAndClose(bytes32 listingId) external nonReentrant {
        Listing storage listing = _creatorListing(listingId);
        if (listing.status != ListingStatus.Paused) revert ListingNotPaused(listingId);
        uint256 escrow = listing.escrow;

        listing.escrow = 0;
        listing.status = ListingStatus.Closed;
        if (escrow != 0) emit EarningsWithdrawn(listingId, msg.sender, escrow);
        emit ListingStatusChanged(listingId, ListingStatus.Closed);
        if (escrow != 0) _sendEth(msg.sender, escrow);
    }

    // ─── Renters ──────────────────────────────────────────────────────────────

    function purchaseOneTime(bytes32 listingId) external payable {
        (Listing storage listing, uint256 feeRate) = _listingForSale(listingId, RentalModel.OneTime);
        uint256 price = listing.price;
        if (msg.value != price) revert IncorrectPayment(msg.value, price);
        AccessCredential storage credential = _newCredential(listingId);

        credential.buyer = msg.sender;
        credential.purchasedAt = uint40(block.timestamp);
        uint256 fee = _collect(listing, msg.value, feeRate);
        emit AccessPurchased(listingId, msg.sender, RentalModel.OneTime, msg.value, fee, 0);
    }

    function purchaseSubscription(bytes32 listingId, uint256 duration) external payable {
        (Listing storage listing, uint256 feeRate) = _listingForSale(listingId, RentalModel.Subscription);
        _requirePayment(_quote(listing.price, duration));
        AccessCredential storage credential = _newCredential(listingId);

        uint40 expiresAt = uint40(block.timestamp + duration);
        credential.buyer = msg.sender;
        credential.purchasedAt = uint40(block.timestamp);
        credential.expiresAt = expiresAt;
        uint256 fee = _collect(listing, msg.value, feeRate);
        emit AccessPurchased(listingId, msg.sender, RentalModel.Subscription, msg.value, fee, expiresAt);
    }

    function purchasePerQuery(bytes32 listingId, uint256 maxPrice) external payable {
        (Listing storage listing,) = _listingForSale(listingId, RentalModel.PerQuery);
        uint96 agreedPrice = _agreeToPrice(listing.price, maxPrice);
        PerQueryBalance storage record = perQueryBalances[listingId][msg.sender];
        if (record.isRevoked) revert CredentialRevoked(listingId, msg.sender);
        if (record.purchasedAt != 0) revert CredentialAlreadyExists(listingId, msg.sender);

        record.balance = uint96(msg.value);
        record.agreedPrice = agreedPrice;
        record.purchasedAt = uint40(block.timestamp);
        emit PerQueryPurchased(listingId, msg.sender, msg.value, agreedPrice);
    }

    function renewSubscription(bytes32 listingId, uint256 duration) external payable {
        (Listing storage listing, uint256 feeRate) = _listingForSale(listingId, RentalModel.Subscription);
        _requirePayment(_quote(listing.price, duration));
        AccessCredential storage credential = credentials[listingId][msg.sender];
        if (credential.purchasedAt == 0) revert CredentialNotFound(listingId, msg.sender);
        if (credential.isRevoked) revert CredentialRevoked(listingId, msg.sender);

        uint256 from = credential.expiresAt > block.timestamp ? credential.expiresAt : block.timestamp;
        uint40 expiresAt = uint40(from + duration);
        credential.expiresAt = expiresAt;
        uint256 fee = _collect(listing, msg.value, feeRate);
        emit SubscriptionRenewed(listingId, msg.sender, msg.value, fee, expiresAt);
    }

    function topUpBalance(bytes32 listingId, uint256 maxPrice) external payable {
        (Listing storage listing,) = _listingForSale(listingId, RentalModel.PerQuery);
        uint96 agreedPrice = _agreeToPrice(listing.price, maxPrice);
        PerQueryBalance storage record = perQueryBalances[listingId][msg.sender];
        if (record.purchasedAt == 0) revert CredentialNotFound(listingId, msg.sender);
        if (record.isRevoked) revert CredentialRevoked(listingId, msg.sender);

        uint256 balance = record.balance + msg.value;
        if (record.isExiting) _endExit(record, listingId, msg.sender);
        record.balance = uint96(balance);
        record.agreedPrice = agreedPrice;
        emit BalanceToppedUp(listingId, msg.sender, msg.value, balance, agreedPrice);
    }

    function requestExit(bytes32 listingId) external {
        PerQueryBalance storage record = perQueryBalances[listingId][msg.sender];
        if (record.purchasedAt == 0) revert CredentialNotFound(listingId, msg.sender);
        if (record.isRevoked) revert CredentialRevoked(listingId, msg.sender);
        if (record.isExiting) {
            revert ExitPending(listingId, msg.sender, exitReclaimableAt[listingId][msg.sender]);
        }
        uint256 balance = record.balance;
        if (balance == 0) revert NothingToWithdraw();

        uint40 reclaimableAt = uint40(block.timestamp + EXIT_DELAY);
        record.isExiting = true;
        exitReclaimableAt[listingId][msg.sender] = reclaimableAt;
        emit ExitRequested(listingId, msg.sender, balance, reclaimableAt);
    }

    function reclaimBalance(bytes32 listingId) external nonReentrant {
        PerQueryBalance storage record = perQueryBalances[listingId][msg.sender];
        if (record.purchasedAt == 0) revert CredentialNotFound(listingId, msg.sender);
        if (!record.isRevoked && listings[listingId].status != ListingStatus.Closed) {
            if (!record.isExiting) revert Unauthorized(msg.sender);
            uint256 reclaimableAt = exitReclaimableAt[listingId][msg.sender];
            if (block.timestamp < reclaimableAt) revert ExitPending(listingId, msg.sender, reclaimableAt);
        }
        uint256 amount = record.balance;
        if (amount == 0) revert NothingToWithdraw();

        record.balance = 0;
        if (record.isExiting) _endExit(record, listingId, msg.sender);
        emit BalanceReclaimed(listingId, msg.sender, amount);
        _sendEth(msg.sender, amount);
    }

    // ─── Protocol operator ────────────────────────────────────────────────────

    function consumeQuery(bytes32 listingId, address buyer, uint256 runId, uint256 maxPrice, bool succeeded)
        external
    {
        Config storage config = _config;
        _requireOperator(config.operator);
        if (config.paused) revert ProtocolPaused();
        bytes4 refusal = _consume(listingId, buyer, runId, maxPrice, succeeded, config.feeBasisPoints);
        if (refusal != 0) _revertRefusal(refusal, listingId, buyer, runId, maxPrice);
    }

    function consumeQueries(Debit[] calldata debits) external {
        Config storage config = _config;
        _requireOperator(config.operator);
        if (config.paused) revert ProtocolPaused();
        _consumeBatch(debits, config.feeBasisPoints);
    }

    function settle(Debit[] calldata debits, bytes32 root, RunCount[] calldata counts) external {
        Config storage config = _config;
        _requireOperator(config.operator);
        if (debits.length != 0) {
            if (config.paused) revert ProtocolPaused();
            _consumeBatch(debits, config.feeBasisPoints);
        }
        _anchor(root, counts);
    }

    // ─── Protocol authority ───────────────────────────────────────────────────

    function setOperator(address operator_) external onlyAuthority {
        emit OperatorChanged(_config.operator, operator_);
        _config.operator = operator_;
    }

    function setFeeBasisPoints(uint256 feeBasisPoints_) external onlyAuthority {
        if (feeBasisPoints_ > MAX_FEE_BASIS_POINTS) revert FeeTooHigh(feeBasisPoints_, MAX_FEE_BASIS_POINTS);
        emit FeeBasisPointsUpdated(_config.feeBasisPoints, feeBasisPoints_);
        _config.feeBasisPoints = uint16(feeBasisPoints_);
    }

    function setFeeRecipient(address recipient) external onlyAuthority {
        if (recipient == address(0)) revert ZeroAddress();
        emit FeeRecipientUpdated(feeRecipient, recipient);
        feeRecipient = recipient;
    }

    function setPaused(bool paused_) external onlyAuthority {
        _config.paused = paused_;
        emit PausedSet(paused_);
    }

    function setReceiptsSigner(address signer) external onlyAuthority {
        if (signer == address(0)) revert ZeroAddress();
        emit ReceiptsSignerChanged(receiptsSigner, signer);
        receiptsSigner = signer;
    }

    function transferAuthority(address authority_) external onlyAuthority {
        if (authority_ == address(0)) revert ZeroAddress();
        emit AuthorityTransferred(authority, authority_);
        authority = authority_;
    }

    function withdrawFees(bytes32[] calldata listingIds) external nonReentrant {
        address recipient = feeRecipient;
        if (msg.sender != recipient) revert Unauthorized(msg.sender);
        uint256 amount;
        for (uint256 i; i < listingIds.length; ++i) {
            Listing storage listing = listings[listingIds[i]];
            amount += listing.accruedFees;
            listing.accruedFees = 0;
        }
        if (amount == 0) revert NothingToWithdraw();

        emit FeesWithdrawn(recipient, amount, listingIds);
        _sendEth(recipient, amount);
    }

    // ─── Views ────────────────────────────────────────────────────────────────

    function deriveListingId(address creator, bytes32 seed) public pure returns (bytes32) {
        return keccak256(abi.encodePacked(creator, seed));
    }

    function isCredentialValid(bytes32 listingId, address buyer) external view returns (bool) {
        return getAccessState(listingId, buyer).isValid;
    }

    function getAccessState(bytes32 listingId, address buyer) public view returns (AccessState memory state) {
        Listing storage listing = listings[listingId];
        state.listingStatus = listing.status;
        state.model = listing.model;
        state.price = listing.price;
        if (state.model == RentalModel.PerQuery) {
            PerQueryBalance memory record = perQueryBalances[listingId][buyer];
            state.hasCredential = record.purchasedAt != 0;
            state.isRevoked = record.isRevoked;
            state.purchasedAt = record.purchasedAt;
            state.balance = record.balance;
            state.agreedPrice = record.agreedPrice;
            if (record.isExiting) state.reclaimableAt = exitReclaimableAt[listingId][buyer];
            state.isValid = state.balance >= _debitPrice(state.price, state.agreedPrice) && !record.isExiting;
        } else {
            AccessCredential memory credential = credentials[listingId][buyer];
            state.hasCredential = credential.purchasedAt != 0;
            state.isRevoked = credential.isRevoked;
            state.purchasedAt = credential.purchasedAt;
            state.expiresAt = credential.expiresAt;
            state.isValid = state.model == RentalModel.OneTime || credential.expiresAt > block.timestamp;
        }
        state.isValid = state.isValid && state.hasCredential && !state.isRevoked
            && (state.listingStatus == ListingStatus.Active || state.listingStatus == ListingStatus.Paused);
    }

    function requireAccess(bytes32 listingId, address buyer) external view {
        AccessState memory state = getAccessState(listingId, buyer);
        if (state.listingStatus == ListingStatus.None) revert ListingNotFound(listingId);
        if (state.listingStatus != ListingStatus.Active) revert ListingNotActive(listingId);
        if (!state.hasCredential) revert CredentialNotFound(listingId, buyer);
        if (state.isRevoked) revert CredentialRevoked(listingId, buyer);
        if (state.reclaimableAt != 0) revert ExitPending(listingId, buyer, state.reclaimableAt);
        if (state.model == RentalModel.Subscription && state.expiresAt <= block.timestamp) {
            revert CredentialExpired(listingId, buyer, state.expiresAt);
        }
        if (state.model == RentalModel.PerQuery) {
            uint256 price = _debitPrice(state.price, state.agreedPrice);
            if (state.balance < price) revert InsufficientBalance(state.balance, price);
        }
    }

    function subscriptionQuote(bytes32 listingId, uint256 duration) external view returns (uint256) {
        Listing storage listing = listings[listingId];
        if (listing.status == ListingStatus.None) revert ListingNotFound(listingId);
        if (listing.model != RentalModel.Subscription) revert InvalidAccessType(listing.model);
        return _quote(listing.price, duration);
    }

    function isRunRecorded(uint256 runId) external view returns (bool) {
        return _recordedRuns[runId >> 8] & (1 << (runId & 0xff)) != 0;
    }

    function operator() external view returns (address) {
        return _config.operator;
    }

    function feeBasisPoints() external view returns (uint256) {
        return _config.feeBasisPoints;
    }

    function paused() external view returns (bool) {
        return _config.paused;
    }

    // ─── Internals ────────────────────────────────────────────────────────────

    /// @dev An open listing of `model`, and the fee for the sale; reverts on anything a buyer may not buy.
    function _listingForSale(bytes32 listingId, RentalModel model)
        private
        view
        returns (Listing storage listing, uint256 feeBasisPoints_)
    {
        Config memory config = _config;
        if (config.paused) revert ProtocolPaused();
        listing = listings[listingId];
        ListingStatus status = listing.status;
        if (status == ListingStatus.None) revert ListingNotFound(listingId);
        if (status != ListingStatus.Active) revert ListingNotActive(listingId);
        if (listing.model != model) revert InvalidAccessType(listing.model);
        feeBasisPoints_ = config.feeBasisPoints;
    }

    /// @dev Runs are debited and anchored by the operator, or by the authority itself.
    function _requireOperator(address operator_) private view {
        if (msg.sender != operator_ && msg.sender != authority) revert Unauthorized(msg.sender);
    }

    function _creatorListing(bytes32 listingId) private view returns (Listing storage listing) {
        listing = listings[listingId];
        if (listing.creator == address(0)) revert ListingNotFound(listingId);
        if (listing.creator != msg.sender) revert Unauthorized(msg.sender);
    }

    function _newCredential(bytes32 listingId) private view returns (AccessCredential storage credential) {
        credential = credentials[listingId][msg.sender];
        if (credential.isRevoked) revert CredentialRevoked(listingId, msg.sender);
        if (credential.purchasedAt != 0) revert CredentialAlreadyExists(listingId, msg.sender);
    }

    /// @dev Splits `amount` into the protocol fee and the creator's share, exactly.
    function _collect(Listing storage listing, uint256 amount, uint256 feeBasisPoints_)
        private
        returns (uint256 fee)
    {
        fee = amount * feeBasisPoints_ / BASIS_POINTS;
        listing.accruedFees += uint112(fee);
        listing.escrow += uint112(amount - fee);
    }

    /// @dev Ends `buyer`'s exit: by its reclaim, or by a deposit (the renter stays).
    function _endExit(PerQueryBalance storage record, bytes32 listingId, address buyer) private {
        record.isExiting = false;
        delete exitReclaimableAt[listingId][buyer];
    }

    function _requireNotPaused() private view {
        if (_config.paused) revert ProtocolPaused();
    }

    function _requireValidTerms(uint96 price, string calldata metadataUri) private pure {
        if (price < MIN_PRICE) revert PriceTooLow(price, MIN_PRICE);
        if (bytes(metadataUri).length == 0) revert MetadataUriEmpty();
        if (bytes(metadataUri).length > MAX_METADATA_URI_LENGTH) {
            revert MetadataUriTooLong(bytes(metadataUri).length, MAX_METADATA_URI_LENGTH);
        }
    }

    function _requirePayment(uint256 required) private view {
        if (msg.value != required) revert IncorrectPayment(msg.value, required);
    }

    function _quote(uint256 price, uint256 duration) private pure returns (uint256) {
        if (duration != 30 days && duration != 90 days && duration != 365 days) {
            revert InvalidDuration(duration);
        }
        return price * duration / SUBSCRIPTION_PERIOD;
    }

    /// @dev The per-task price a deposit agrees to: the listing's, if the renter accepts it and the deposit
    /// pays for one task at it.
    function _agreeToPrice(uint96 price, uint256 maxPrice) private view returns (uint96) {
        if (price > maxPrice) revert PriceAboveLimit(price, maxPrice);
        if (msg.value < price) revert DepositTooLow(msg.value, price);
        return price;
    }

    /// @dev What a run costs a per-task balance: a price cut applies at once, a raise only once the renter
    /// agreed to it by depositing again.
    function _debitPrice(uint256 listingPrice, uint256 agreedPrice) private pure returns (uint256) {
        return agreedPrice < listingPrice ? agreedPrice : listingPrice;
    }

    /// @dev What a debit charges: the run's price as `_debitPrice` says, at most `maxPrice`, the price the
    /// run was admitted at, so a raise between a run's admission and its debit never reaches it.
    function _chargedPrice(uint256 listingPrice, uint256 agreedPrice, uint256 maxPrice)
        private
        pure
        returns (uint256 price)
    {
        price = _debitPrice(listingPrice, agreedPrice);
        if (maxPrice < price) price = maxPrice;
    }

    /// @dev Debits one run as `consumeQuery` and `consumeQueries` both do, at `_chargedPrice`, or changes
    /// nothing and returns the selector of the error that refuses it (0 when debited). A run settles on an
    /// active or paused listing (it may have started before the pause), never a closed one, and on a balance
    /// being exited only before the exit comes due. `succeeded` only travels to `QueryConsumed`: a run's
    /// outcome never changes what it costs.
    function _consume(
        bytes32 listingId,
        address buyer,
        uint256 runId,
        uint256 maxPrice,
        bool succeeded,
        uint256 feeBasisPoints_
    ) private returns (bytes4 refusal) {
        Listing storage listing = listings[listingId];
        ListingStatus status = listing.status;
        if (status == ListingStatus.None) return ListingNotFound.selector;
        if (status == ListingStatus.Closed) return ListingNotActive.selector;
        if (listing.model != RentalModel.PerQuery) return InvalidAccessType.selector;
        PerQueryBalance storage record = perQueryBalances[listingId][buyer];
        uint256 price;
        uint256 balance;
        (refusal, price, balance) = _debitTerms(record, listingId, buyer, listing.price, maxPrice);
        if (refusal != 0) return refusal;
        if (!_markRunRecorded(runId)) return RunAlreadyRecorded.selector;

        unchecked {
            balance -= price;
        }
        record.balance = uint96(balance);
        uint256 fee = _collect(listing, price, feeBasisPoints_);
        emit QueryConsumed(listingId, buyer, runId, price, fee, balance, succeeded);
        return 0;
    }

    /// @dev What a debit of `buyer`'s balance would charge and the balance it would be charged from, read in
    /// one storage read, or the selector of the error that refuses it.
    function _debitTerms(
        PerQueryBalance storage record,
        bytes32 listingId,
        address buyer,
        uint256 listingPrice,
        uint256 maxPrice
    ) private view returns (bytes4 refusal, uint256 price, uint256 balance) {
        PerQueryBalance memory read = record;
        if (read.purchasedAt == 0) return (CredentialNotFound.selector, 0, 0);
        if (read.isRevoked || read.isExiting) {
            if (read.isRevoked) return (CredentialRevoked.selector, 0, 0);
            if (block.timestamp >= exitReclaimableAt[listingId][buyer]) return (ExitPending.selector, 0, 0);
        }
        price = _chargedPrice(listingPrice, read.agreedPrice, maxPrice);
        balance = read.balance;
        if (balance < price) refusal = InsufficientBalance.selector;
    }

    /// @dev Debits each of `debits` as `_consume` does, in order, skipping a refused one with `QueryNotConsumed`.
    function _consumeBatch(Debit[] calldata debits, uint256 feeBasisPoints_) private {
        for (uint256 i; i < debits.length; ++i) {
            Debit calldata debit = debits[i];
            bytes4 refusal = _consume(
                debit.listingId, debit.buyer, debit.runId, debit.maxPrice, debit.succeeded, feeBasisPoints_
            );
            if (refusal != 0) emit QueryNotConsumed(debit.listingId, debit.buyer, debit.runId, refusal);
        }
    }

    /// @dev Anchors `root` with its `counts`, once: a root already anchored is skipped, so resending a
    /// settlement whose receipt was lost anchors nothing twice. Root zero anchors nothing.
    function _anchor(bytes32 root, RunCount[] calldata counts) private {
        if (root == 0) {
            if (counts.length != 0) revert InvalidAnchor();
            return;
        }
        if (anchoredAt[root] != 0) return;
        for (uint256 i; i < counts.length; ++i) {
            if (counts[i].failed > counts[i].runs) revert InvalidAnchor();
        }
        anchoredAt[root] = block.number;
        emit RunsAnchored(root, counts);
    }

    /// @dev Reverts with the error `_consume` refused a run for, with the numbers that explain it.
    function _revertRefusal(bytes4 refusal, bytes32 listingId, address buyer, uint256 runId, uint256 maxPrice)
        private
        view
    {
        if (refusal == ListingNotFound.selector) revert ListingNotFound(listingId);
        if (refusal == ListingNotActive.selector) revert ListingNotActive(listingId);
        if (refusal == InvalidAccessType.selector) revert InvalidAccessType(listings[listingId].model);
        if (refusal == CredentialNotFound.selector) revert CredentialNotFound(listingId, buyer);
        if (refusal == CredentialRevoked.selector) revert CredentialRevoked(listingId, buyer);
        if (refusal == ExitPending.selector) {
            revert ExitPending(listingId, buyer, exitReclaimableAt[listingId][buyer]);
        }
        if (refusal == InsufficientBalance.selector) {
            PerQueryBalance storage record = perQueryBalances[listingId][buyer];
            revert InsufficientBalance(
                record.balance, _chargedPrice(listings[listingId].price, record.agreedPrice, maxPrice)
            );
        }
        revert RunAlreadyRecorded(runId);
    }

    /// @dev Marks `runId` settled; false when it already was.
    function _markRunRecorded(uint256 runId) private returns (bool) {
        uint256 word = runId >> 8;
        uint256 bit = 1 << (runId & 0xff);
        uint256 bits = _recordedRuns[word];
        if (bits & bit != 0) return false;
        _recordedRuns[word] = bits | bit;
        return true;
    }

    function _sendEth(address to, uint256 amount) private {
        (bool sent,) = to.call{value: amount}("");
        if (!sent) revert TransferFailed(to, amount);
    }
}
