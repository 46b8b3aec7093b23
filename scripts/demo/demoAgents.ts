// The demo catalogue `npm start` lists for a newcomer: one declarative and one connected agent.

const text = { type: "string" };

/** The auditor's prompt; by it, `npm start`'s vendor emulator knows the auditor (demoVendorAnswers.ts). */
export const AUDITOR_SYSTEM_PROMPT =
  "You are a meticulous smart-contract auditor. Report findings as a list with severity, location and fix.";

/** The demo agents; the connected one is called at `connectedAgentUrl` (see demoAgentServer.ts). */
export const demoAgents = (connectedAgentUrl: string) =>
  [
    {
      rentalModel: 2, // per task
      priceEth: "0.0005",
      manifest: {
        name: "contract-auditor",
        title: "Solidity Contract Auditor",
        category: "coding",
        description:
          "Reviews Solidity contracts for reentrancy, access control and arithmetic bugs and explains each finding with the line it concerns.",
        model: { provider: "openai", model: "gpt-4.1-mini" },
        system_prompt: AUDITOR_SYSTEM_PROMPT,
        tools: [{ name: "read_repo_file", scope: "repo_scoped" }],
        input_schema: {
          type: "object",
          // `repository` (owner/name or its GitHub URL) is the one read_repo_file may read.
          properties: { source: text, repository: text },
          required: ["source"],
        },
        output_schema: {
          type: "object",
          properties: { findings: { type: "array", items: text, minItems: 1 } },
          required: ["findings"],
        },
        timeout_seconds: 120,
        sample_output: [
          "High: reentrancy in withdraw(): line 14 makes an external call before line 16 updates balances. Fix: update balances before the call, or guard withdraw() with nonReentrant.",
        ],
        creator_display_name: "Demo Labs",
      },
      /** Sealed to the listing; `npm start`'s vendor emulator takes any key. */
      vendorCredentials: { api_key: "demo-vendor-key" },
    },
    {
      rentalModel: 1, // subscription
      priceEth: "0.01",
      manifest: {
        name: "market-brief",
        title: "Daily Market Brief",
        category: "research",
        description:
          "A connected research agent that summarises the day's moves in a sector, with sources, from the creator's own pipeline.",
        model: { provider: "self_hosted", endpoint_url: "https://agents.demo-labs.example/v1" },
        entrypoint_url: connectedAgentUrl,
        input_schema: { type: "object", properties: { sector: text }, required: ["sector"] },
        output_schema: text,
        sample_output: ["Semiconductors rose 2.1% on strong guidance from two foundries."],
        creator_display_name: "Demo Labs",
      },
    },
  ] as const;
