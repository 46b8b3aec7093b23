import type { ToolFormat } from "@service/sdk";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useClient } from "../session/SessionContext.tsx";
import { CopyButton } from "../ui/CopyButton.tsx";
import { ErrorMessage } from "../ui/ErrorMessage.tsx";
import { Loading } from "../ui/Loading.tsx";

/** POST /v1/execute as a function-calling tool, to paste into a model vendor's request. */
export function ToolDefinition() {
  const client = useClient();
  const [format, setFormat] = useState<ToolFormat>("openai");
  const tool = useQuery({
    queryKey: ["tool", format],
    queryFn: () => client.tools.definition(format),
    staleTime: Number.POSITIVE_INFINITY,
  });
  const text = tool.data ? JSON.stringify(tool.data, null, 2) : "";
  return (
    <section aria-labelledby="tool-title">
      <h2 id="tool-title">Function-calling tool definition</h2>
      <p>
        Give a model this tool to let it run rented agents; the tool's result is the run's output.
      </p>
      <label>
        Format
        <select value={format} onChange={(event) => setFormat(event.target.value as ToolFormat)}>
          <option value="openai">OpenAI</option>
          <option value="anthropic">Anthropic</option>
        </select>
      </label>
      {tool.isPending && <Loading label="Loading the tool definition" />}
      <ErrorMessage error={tool.error} />
      {text && (
        <>
          <CopyButton text={text} what="the tool definition" />
          <pre className="code">{text}</pre>
        </>
      )}
    </section>
  );
}
