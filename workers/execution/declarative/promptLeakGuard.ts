/** Windows of this many characters (whitespace collapsed) of the prompt are looked for. */
const WINDOW = 48;
/** Windows start every STRIDE characters: any WINDOW + STRIDE - 1 characters of it hold one. */
const STRIDE = 16;
/** Raw characters held back from the stream, so a repeat is caught before most of it is sent. */
const HOLD_BACK = 2 * (WINDOW + STRIDE);

export type PromptLeakGuard = {
  /** Passes streamed text on, holding back the end; false once it repeats the prompt. */
  push: (delta: string) => boolean;
  /** Sends what is held back (the answer is over and clean). */
  flush: () => void;
  /** Whether `text` repeats the prompt: tool arguments, a structured output's strings. */
  repeats: (text: string) => boolean;
};

/**
 * Keeps a declarative agent's private instructions from leaving the run verbatim, whatever the
 * input talked the model into: any run of about 63 characters of the prompt (whitespace collapsed;
 * a shorter prompt: the whole of it) found in the output or in a tool call's arguments fails the
 * run. The stream is held back by a few dozen characters so a repeat is cut before it is sent.
 */
export function promptLeakGuard(prompt: string, send: (text: string) => void): PromptLeakGuard {
  const normalizedPrompt = collapse(prompt).trim();
  const width = Math.min(WINDOW, normalizedPrompt.length);
  const windows = new Set<string>();
  if (normalizedPrompt.length <= WINDOW + STRIDE) windows.add(normalizedPrompt);
  else {
    for (let start = 0; start + width <= normalizedPrompt.length; start += STRIDE) {
      windows.add(normalizedPrompt.slice(start, start + width));
    }
  }
  const shortPrompt = normalizedPrompt.length <= WINDOW + STRIDE;
  const repeats = (text: string) => {
    if (width === 0) return false;
    const normalized = collapse(text);
    if (shortPrompt) return normalized.includes(normalizedPrompt);
    for (let start = 0; start + width <= normalized.length; start++) {
      if (windows.has(normalized.slice(start, start + width))) return true;
    }
    return false;
  };

  let held = "";
  // The end of everything pushed, whitespace collapsed: a repeat may span two deltas.
  let seen = "";
  let leaked = false;
  return {
    push(delta) {
      if (leaked) return false;
      const scanned = collapse(seen + delta);
      if (repeats(scanned)) {
        leaked = true;
        return false;
      }
      seen = scanned.slice(-(WINDOW + STRIDE));
      held += delta;
      if (held.length > HOLD_BACK) {
        send(held.slice(0, held.length - HOLD_BACK));
        held = held.slice(held.length - HOLD_BACK);
      }
      return true;
    },
    flush() {
      if (!leaked && held) send(held);
      held = "";
    },
    repeats,
  };
}

function collapse(text: string): string {
  return text.replace(/\s+/g, " ");
}
