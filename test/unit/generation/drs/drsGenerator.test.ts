import { afterEach, beforeAll, describe, expect, it } from "vitest";

import { createDrsGenerator } from "../../../../src/generation/drs/drsGenerator.ts";
import { MAX_GENERATOR_ANSWER_BYTES } from "../../../../src/generation/http/postJson.ts";
import {
  createLanguageValidator,
  type LanguageValidator,
} from "../../../../src/generation/validation/languageValidator.ts";
import {
  failureOf,
  type FakeAnswer,
  type FakeGeneratorServer,
  startFakeGeneratorServer,
} from "../../../support/fakeGeneratorServer.ts";
import { DRS_CONTRACT } from "../../../support/generationFixtures.ts";
import { ManualClock } from "../../../support/manualClock.ts";
import { waitFor } from "../../../support/wait.ts";

let validator: LanguageValidator;
let server: FakeGeneratorServer | undefined;
beforeAll(async () => {
  validator = await createLanguageValidator();
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function drsAnswering(answer: (index: number) => FakeAnswer, clock = new ManualClock()) {
  server = await startFakeGeneratorServer((_request, index) => answer(index));
  const generator = createDrsGenerator({
    url: `${server.url}/generate`,
    timeoutMs: 300_000,
    languageValidator: async () => validator,
    clock,
  });
  return { generator, server, clock };
}

describe("drs generator", () => {
  it("POSTs exactly the wire request and re-validates a ship with our pipeline", async () => {
    const { generator, server } = await drsAnswering(() => ({
      status: 200,
      body: DRS_CONTRACT.response as object,
    }));
    const response = await generator.generate(DRS_CONTRACT.request);
    expect(server.received).toHaveLength(1);
    const [received] = server.received;
    expect(received!.method).toBe("POST");
    expect(received!.path).toBe("/generate");
    expect(received!.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(received!.body)).toEqual(DRS_CONTRACT.request);
    expect(response.ship_summary).toMatchObject({ verdict: "ship", final_count: 2, generated: 2 });
    // Our categories replace the service's empty ones; our evidence replaces the service's.
    expect(response.prompts.map((p) => p.category)).toEqual(["solution", "task"]);
    expect(response.language_evidence.every((e) => e.detected_language === "fr")).toBe(true);
  });

  it("reads the proxy-wrapped form", async () => {
    const { generator } = await drsAnswering(() => ({
      status: 200,
      body: { statusCode: 200, body: JSON.stringify(DRS_CONTRACT.response) },
    }));
    expect((await generator.generate(DRS_CONTRACT.request)).ship_summary.final_count).toBe(2);
  });

  it("passes held, gate_error and an empty ship through untouched, for the job to classify", async () => {
    const summary = (DRS_CONTRACT.response as { ship_summary: object }).ship_summary;
    for (const ship_summary of [
      { ...summary, verdict: "held", reason: "low-quality" },
      { ...summary, verdict: "gate_error", error_category: "retryable", reason: "llm-overloaded" },
      { ...summary, verdict: "ship", final_count: 0 },
    ]) {
      const prompts =
        ship_summary.verdict === "ship" ? [] : (DRS_CONTRACT.response as { prompts: object[] }).prompts;
      const { generator } = await drsAnswering(() => ({ status: 200, body: { prompts, ship_summary } }));
      const response = await generator.generate(DRS_CONTRACT.request);
      expect(response.ship_summary.verdict).toBe(ship_summary.verdict);
      expect(response.ship_summary.reason).toBe(ship_summary.reason);
      await server!.close();
      server = undefined;
    }
  });

  it("classifies 5xx and a wrapped 5xx as retryable, 4xx and malformed bodies as terminal", async () => {
    const cases: [FakeAnswer, string, boolean][] = [
      [{ status: 503, body: "upstream down" }, "server_error", true],
      [{ status: 200, body: { statusCode: 502, body: "" } }, "server_error", true],
      [{ status: 429, body: "slow down" }, "rate_limited", true],
      [{ status: 400, body: { error: "bad request" } }, "rejected", false],
      [{ status: 200, body: "<html>not json</html>", contentType: "text/html" }, "unparseable", false],
      [{ status: 200, body: { prompts: "nope" } }, "unparseable", false],
    ];
    for (const [answer, kind, retryable] of cases) {
      const { generator } = await drsAnswering(() => answer);
      const error = await failureOf(generator.generate(DRS_CONTRACT.request));
      expect([error.kind, error.retryable], JSON.stringify(answer)).toEqual([kind, retryable]);
      expect(error.message).not.toContain("upstream down");
      await server!.close();
      server = undefined;
    }
  });

  it("times out on the injected clock (a retryable timeout)", async () => {
    const { generator, server, clock } = await drsAnswering(() => "hang");
    const pending = failureOf(generator.generate(DRS_CONTRACT.request));
    await waitFor(() => server.received.length === 1 && clock.pendingSleeps === 1);
    clock.advance(300_000);
    const error = await pending;
    expect([error.kind, error.retryable]).toEqual(["timeout", true]);
    expect(clock.pendingSleeps).toBe(0);
  });

  it("stops at once when the caller aborts", async () => {
    const { generator, server, clock } = await drsAnswering(() => "hang");
    const controller = new AbortController();
    const pending = failureOf(generator.generate(DRS_CONTRACT.request, { signal: controller.signal }));
    await waitFor(() => server.received.length === 1);
    controller.abort();
    const error = await pending;
    expect([error.kind, error.retryable]).toEqual(["aborted", true]);
    expect(clock.pendingSleeps).toBe(0);
  });

  it("refuses an answer larger than the bound without buffering it whole (terminal, unparseable)", async () => {
    const { generator } = await drsAnswering(() => ({
      status: 200,
      body: "x".repeat(MAX_GENERATOR_ANSWER_BYTES + 1),
      contentType: "application/json",
    }));
    const error = await failureOf(generator.generate(DRS_CONTRACT.request));
    expect([error.kind, error.retryable]).toEqual(["unparseable", false]);
  });

  it("reports an unreachable service as a retryable transport failure", async () => {
    const { generator, server } = await drsAnswering(() => ({ status: 200, body: {} }));
    await server.close();
    const error = await failureOf(generator.generate(DRS_CONTRACT.request));
    expect([error.kind, error.retryable]).toEqual(["transport", true]);
  });
});
