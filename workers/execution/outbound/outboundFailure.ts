/**
 * Why a call to an endpoint we were given failed, in words fit for the renter: it never names the
 * endpoint, its address or anything the creator keeps private.
 */
export class OutboundFailure extends Error {}

/**
 * An `OutboundFailure` the guard's rules decided, not the endpoint's trouble: a URL that is not
 * HTTPS or carries credentials and an address outside the public internet (refused before anything
 * is sent), a redirect (not followed).
 */
export class OutboundRefusal extends OutboundFailure {}
