/**
 * A read that callers arriving together share, without any of them getting an answer older than
 * its own arrival: a caller joins the read that is about to be sent (on the next turn of the event
 * loop), never one already sent, since that one may have been answered from before the caller came.
 */
export function joinedRead<T>(load: () => Promise<T>): () => Promise<T> {
  let unsent: Promise<T> | undefined;
  return () => {
    unsent ??= new Promise<T>((resolve, reject) => {
      setImmediate(() => {
        unsent = undefined;
        load().then(resolve, reject);
      });
    });
    return unsent;
  };
}
