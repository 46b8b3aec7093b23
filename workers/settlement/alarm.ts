/**
 * A sleep that `ring()` ends early. A ring while nobody sleeps is kept for the next sleep, so a
 * wake-up that arrives while the sleeper is busy is not lost.
 */
export function createAlarm() {
  let rang = false;
  let wake: (() => void) | undefined;
  return {
    sleep(ms: number): Promise<void> {
      if (rang) {
        rang = false;
        return Promise.resolve();
      }
      return new Promise((resolve) => {
        const done = () => {
          clearTimeout(timer);
          wake = undefined;
          resolve();
        };
        const timer = setTimeout(done, ms);
        wake = done;
      });
    },
    ring(): void {
      if (wake) wake();
      else rang = true;
    },
  };
}
