// What JetStream itself holds for registration jobs (or runs), asked through its own API rather than
// the app's.
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { streamName } from "../../lib/bus/jetStreamBus.ts";
import { natsConnection } from "../../lib/bus/natsConnection.ts";
import { REGISTRATION_SUBJECT } from "../../lib/jobs/publishJob.ts";

export type RegistrationBacklog = {
  /** Job ids of the messages in the stream: a work queue keeps a message until it is acknowledged. */
  stored: string[];
  /** Messages the workers hold or will have again: delivered and neither acknowledged nor terminated. */
  awaitingAck: number;
};

/** Reads the registration stream message by message, and the workers' consumer. */
export function registrationBacklog(natsUrl: string): Promise<RegistrationBacklog> {
  return jetStreamBacklog(natsUrl, REGISTRATION_SUBJECT, "registration");
}

/** Reads `subject`'s stream message by message, and the durable `consumer` workers share. */
export async function jetStreamBacklog(
  natsUrl: string,
  subject: string,
  consumer: string,
): Promise<RegistrationBacklog> {
  const stream = streamName(subject);
  const connection = await connect(natsConnection(natsUrl));
  try {
    const manager = await jetstreamManager(connection);
    const { state } = await manager.streams.info(stream);
    const stored: string[] = [];
    for (let seq = state.first_seq; state.messages > 0 && seq <= state.last_seq; seq++) {
      // A work queue deletes acknowledged messages, leaving gaps between first and last.
      const message = await manager.streams.getMessage(stream, { seq }).catch(() => null);
      if (message) stored.push(new TextDecoder().decode(message.data));
    }
    const info = await manager.consumers.info(stream, consumer);
    return { stored, awaitingAck: info.num_ack_pending };
  } finally {
    await connection.close();
  }
}
