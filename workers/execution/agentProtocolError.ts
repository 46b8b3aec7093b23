/** A connected agent answered, but not in the protocol of docs/execution.md; the message is for the renter. */
export class AgentProtocolError extends Error {}
