/** Subjects whose overlap is remembered; past this many, those with nothing in flight are forgotten. */
const MAX_SUBJECTS = 10_000;

type Subject = {
  /** Requests of the subject in flight now. */
  serving: number;
  /** Requests of the subject started so far: one that starts during another's life overlaps it. */
  started: number;
  /** Whether the last request to finish overlapped another. */
  lastOverlapped: boolean;
};

/**
 * Tells whether a subject's requests overlap in this process: a request is busy when another of the
 * subject is in flight as it starts, or when the last one to finish overlapped another. A request is
 * in flight until the end of the turn of the event loop it ended in: requests that arrived together
 * and were each answered at once, one after another in one turn, overlap. Clients whose requests
 * move in step (all answered, then all sent again) overlap within each step without any being in
 * flight between steps; one client sending a request at a time never overlaps.
 */
export function createOverlappingRequests() {
  const subjects = new Map<string, Subject>();
  /** Requests ended in this turn of the event loop, leaving flight at its end. */
  const endingThisTurn: (() => void)[] = [];
  const endAtTurnEnd = (finish: () => void) => {
    if (endingThisTurn.push(finish) === 1) {
      setImmediate(() => {
        for (const ending of endingThisTurn.splice(0)) ending();
      });
    }
  };

  function subjectOf(name: string): Subject {
    const known = subjects.get(name);
    if (known) return known;
    if (subjects.size >= MAX_SUBJECTS) {
      for (const [key, subject] of subjects) if (subject.serving === 0) subjects.delete(key);
    }
    const subject = { serving: 0, started: 0, lastOverlapped: false };
    subjects.set(name, subject);
    return subject;
  }

  return {
    /** Starts a request of `name`: whether it is busy, and the call that ends it. */
    start(name: string): { busy: boolean; end: () => void } {
      const subject = subjectOf(name);
      const busy = subject.serving > 0 || subject.lastOverlapped;
      const inFlightAtStart = subject.serving;
      subject.serving += 1;
      subject.started += 1;
      const startedAtStart = subject.started;
      return {
        busy,
        end: () =>
          endAtTurnEnd(() => {
            subject.serving -= 1;
            subject.lastOverlapped = inFlightAtStart > 0 || subject.started > startedAtStart;
          }),
      };
    },
  };
}
