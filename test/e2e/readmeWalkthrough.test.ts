import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { type StartedSerenity, startSerenity } from "../support/serenityProcess.ts";

/** Runs the README's walk-through block, verbatim, with bash and curl against `serenity start`. */

function walkthroughScript(): string {
  const readme = readFileSync("README.md", "utf8");
  const section = /<!-- walkthrough:start -->([\s\S]*?)<!-- walkthrough:end -->/.exec(readme)?.[1] ?? "";
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error("README.md has no walk-through block");
  return block;
}

let dataDir: string;
let server: StartedSerenity;
beforeAll(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "serenity-readme-"));
  server = await startSerenity(dataDir);
});
afterAll(async () => {
  await server?.stop();
  await fs.rm(dataDir, { recursive: true, force: true });
});

describe("the README walk-through", () => {
  it("creates a brand with a US/en market in the demo org, adds 10 prompts, lists them, previews French prompts and generates them for a French market", () => {
    const run = spawnSync("bash", ["-euo", "pipefail", "-c", walkthroughScript()], {
      cwd: dataDir,
      env: { ...process.env, API: server.url, SERENITY_TOKEN: server.token, ORG: server.demoOrgId },
      encoding: "utf8",
      timeout: 120_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const [brand, created, listed, markets, pool, preview, french, generation] = run.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(brand).toMatchObject({ name: "Lumiere", status: "active", mode: "subworkspace" });
    expect(created.items).toHaveLength(10);
    expect(created.items.every((item: { status: number }) => item.status === 201)).toBe(true);
    expect(listed.total).toBe(10);
    expect(listed.items).toHaveLength(10);
    expect(markets.items).toEqual([
      expect.objectContaining({
        geoTargetId: 2840,
        languageCode: "en",
        country: "US",
        publishStatus: "live",
        promptCount: 10,
      }),
    ]);
    const lumiere = pool.brands.find((entry: { brandId: string }) => entry.brandId === brand.id);
    expect(lumiere.projects.total).toBe(1);
    // 10 texts × 3 default models = 30 prompt units, topped up to one block of 100.
    expect(lumiere.prompts.total).toBe(100);
    expect(pool.pool.prompts.total).toBe(700);
    // 5: the preview, five validated French prompts, before the market exists.
    expect(preview.summary).toMatchObject({ verdict: "ship", final_count: 5 });
    expect(preview.prompts).toHaveLength(5);
    expect(preview.prompts[0]).toEqual({
      text: expect.any(String),
      category: expect.any(String),
      type: expect.stringMatching(/^(branded|non-branded)$/),
      topic: expect.any(String),
    });
    // 6–7: the French market with generated prompts (the demo runs the builtin generator).
    expect(french.market).toMatchObject({ geoTargetId: 2250, languageCode: "fr" });
    expect(french.promptGeneration).toMatchObject({ status: "provisioning", reused: false });
    expect(generation).toMatchObject({
      jobId: french.promptGeneration.jobId,
      jobType: "generateSemrushMarket",
      status: "COMPLETED",
      result: { projectId: french.market.projectId, published: true, verdict: "ship" },
    });
    expect(generation.result.promptCount).toBeGreaterThanOrEqual(5);
  });
});
