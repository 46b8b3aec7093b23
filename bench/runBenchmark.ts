/**
 * Runs `main` with a cleanup stack unwound exactly once: on success, on failure and on Ctrl-C (a
 * Ctrl-C also makes `main` fail; both paths await the same unwinding, and that failure is not
 * reported, being its consequence).
 */
export async function runBenchmark(main: (cleanup: Cleanup) => Promise<void>): Promise<void> {
  const cleanup = new Cleanup();
  let unwinding: Promise<void> | undefined;
  const unwind = () => {
    unwinding ??= cleanup.run();
    return unwinding;
  };
  let interrupted = false;
  const interrupt = (signal: NodeJS.Signals) => {
    interrupted = true;
    console.error(`\n${signal}: stopping services`);
    void unwind().finally(() => process.exit(130));
  };
  process.once("SIGINT", interrupt);
  process.once("SIGTERM", interrupt);
  try {
    await main(cleanup);
  } catch (error) {
    if (!interrupted) {
      process.exitCode = 1;
      console.error(error);
    }
  } finally {
    await unwind();
    process.off("SIGINT", interrupt);
    process.off("SIGTERM", interrupt);
  }
}

export class Cleanup {
  private readonly steps: { name: string; step: () => Promise<unknown> }[] = [];

  add(name: string, step: () => Promise<unknown>) {
    this.steps.push({ name, step });
  }

  /** Unwinds in reverse order; one failing step does not keep the others from running. */
  async run() {
    while (this.steps.length > 0) {
      const { name, step } = this.steps.pop() as { name: string; step: () => Promise<unknown> };
      try {
        await step();
      } catch (error) {
        console.error(`cleanup of ${name} failed:`, error);
      }
    }
  }
}
