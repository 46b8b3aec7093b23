import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPageServer } from "../../../../test/support/pageServer.ts";
import { endOf, testContext } from "../../../../test/support/toolTestContext.ts";
import { PUBLIC_ONLY } from "../../outbound/outboundPolicy.ts";
import { searchUrl } from "./searchUrl.ts";

let server: Awaited<ReturnType<typeof startPageServer>>;
beforeAll(async () => {
  server = await startPageServer({
    "/changelog": { body: "## 1.2.0\n- Fix CVE-2024-1234\n## 1.1.0\n- Add cve scanner\n" },
    "/long": { body: `${"filler\n".repeat(5000)}needle\n` },
  });
});
afterAll(() => server.close());

describe("search_url", () => {
  it("lists the numbered lines of a page containing the text", async () => {
    const { context } = testContext("read_only", { policy: server.policy });
    expect(await searchUrl.run({ url: server.url("/changelog"), text: "CVE" }, context)).toBe(
      "[1 line contains it]\n2: - Fix CVE-2024-1234\n",
    );
    expect(
      await searchUrl.run(
        { url: server.url("/changelog"), text: "cve", ignore_case: true },
        context,
      ),
    ).toBe("[2 lines contain it]\n2: - Fix CVE-2024-1234\n4: - Add cve scanner\n");
  });

  it("says when it searched only the beginning of the page", async () => {
    const { context } = testContext("read_only", { policy: server.policy, maxOutboundBytes: 1024 });
    expect(await searchUrl.run({ url: server.url("/long"), text: "needle" }, context)).toBe(
      "[searched the page; only its first 1 KB were read]\nNo line contains that text.",
    );
  });

  it("refuses the metadata address", async () => {
    const { context } = testContext("read_only", { policy: PUBLIC_ONLY });
    const url = "https://169.254.169.254/latest/meta-data/";
    expect((await endOf(searchUrl.run({ url, text: "iam" }, context))).kind).toBe(
      "OutboundRefusal",
    );
  });
});
