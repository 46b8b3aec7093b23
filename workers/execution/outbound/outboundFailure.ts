/**
 * Why a call to an endpoint we were given failed, in words fit for the renter: it never names the
 * endpoint, its address or anything the creator keeps private.
 */
export class OutboundFailure extends Error {}
