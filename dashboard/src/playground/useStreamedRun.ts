import type { ExecuteRequest, ExecuteStreamEvent } from "@service/sdk";
import { useQueryClient } from "@tanstack/react-query";
import { useRef, useState } from "react";
import { useClient } from "../session/SessionContext.tsx";

export type RunEnd = Extract<ExecuteStreamEvent, { event: "done" }>["data"];

/** Runs a task with `executeStream`: the output grows as it arrives, then the run's result. */
export function useStreamedRun() {
  const client = useClient();
  const queryClient = useQueryClient();
  const [output, setOutput] = useState("");
  const [end, setEnd] = useState<RunEnd>();
  const [error, setError] = useState<unknown>();
  const [running, setRunning] = useState(false);
  const controller = useRef<AbortController>(undefined);

  async function start(request: ExecuteRequest) {
    controller.current = new AbortController();
    setOutput("");
    setEnd(undefined);
    setError(undefined);
    setRunning(true);
    try {
      for await (const event of client.executeStream(request, {
        signal: controller.current.signal,
      })) {
        if (event.event === "output") setOutput((text) => text + event.data.delta);
        else setEnd(event.data);
      }
    } catch (caught) {
      if (!controller.current.signal.aborted) setError(caught);
    } finally {
      setRunning(false);
      await queryClient.invalidateQueries({ queryKey: ["credentials"] });
    }
  }

  /** Stops reading; the run itself goes on and is charged as usual. */
  const stop = () => controller.current?.abort();

  return { output, end, error, running, start, stop };
}
