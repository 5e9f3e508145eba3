import { afterEach, beforeAll, describe, expect, it } from "vitest";

import { createOpenAiGenerator } from "../../../../src/generation/openai/openaiGenerator.ts";
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
import { DRS_CONTRACT, FIVE_SEED_REQUEST } from "../../../support/generationFixtures.ts";
import { ManualClock } from "../../../support/manualClock.ts";
import { waitFor } from "../../../support/wait.ts";

const API_KEY = "sk-test-configured-key";

const request = FIVE_SEED_REQUEST;

const MODEL_PROMPTS = [
  {
    prompt: "Quelle creme hydratante convient le mieux aux peaux seches ?",
    category: "solution",
    topic: "creme hydratante visage",
  },
  {
    prompt: "Comment integrer un serum a la vitamine C le matin ?",
    category: "task",
    topic: "serum vitamine c",
  },
  {
    prompt: "Quelle protection solaire vaut mieux que les autres pour le visage ?",
    category: "comparative",
    topic: "protection solaire",
  },
  {
    prompt: "Lumiere Paris est-elle adaptee aux peaux sensibles ?",
    category: "solution",
    topic: "peau sensible",
  },
  {
    prompt: "Pourquoi une routine de soin du soir est-elle utile ?",
    category: "informational",
    topic: "routine de soin",
  },
  { prompt: "What is the best sunscreen for the face?", category: "solution", topic: "protection solaire" },
];

function completion(content: string | null) {
  return {
    id: "c-1",
    object: "chat.completion",
    choices: [{ index: 0, message: { role: "assistant", content } }],
  };
}

let validator: LanguageValidator;
let server: FakeGeneratorServer | undefined;
beforeAll(async () => {
  validator = await createLanguageValidator();
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function openAiAnswering(answer: (index: number) => FakeAnswer, options: { model?: string } = {}) {
  server = await startFakeGeneratorServer((_request, index) => answer(index));
  const clock = new ManualClock();
  const generator = createOpenAiGenerator({
    baseUrl: `${server.url}/v1/`,
    apiKey: API_KEY,
    model: options.model,
    timeoutMs: 300_000,
    languageValidator: async () => validator,
    clock,
  });
  return { generator, server, clock };
}

describe("openai generator", () => {
  it("asks for structured JSON grounded in the seeds, then runs our validation pipeline", async () => {
    const { generator, server } = await openAiAnswering(() => ({
      status: 200,
      body: completion(JSON.stringify({ prompts: MODEL_PROMPTS })),
    }));
    const response = await generator.generate(request);
    expect(server.received).toHaveLength(1);
    const sent = server.received[0]!;
    expect(sent.path).toBe("/v1/chat/completions");
    expect(sent.headers.authorization).toBe(`Bearer ${API_KEY}`);
    const body = JSON.parse(sent.body);
    expect(body.model).toBe("gpt-5-nano");
    expect(body.response_format.type).toBe("json_schema");
    expect(body.response_format.json_schema.schema.properties.prompts.items.required).toEqual([
      "prompt",
      "category",
      "topic",
    ]);
    const task = JSON.parse(body.messages[1].content);
    expect(task.seed_topics).toEqual(request.catalogue_seeds);
    expect(task.language_code).toBe("fr");
    expect(task).not.toHaveProperty("site_id");
    expect(JSON.stringify(body)).not.toContain(DRS_CONTRACT.request.metadata.imsOrgId!);
    // The English prompt is rejected by the language stage; five French ones ship.
    expect(response.ship_summary).toMatchObject({
      generated: 6,
      language_rejected: 1,
      final_count: 5,
      verdict: "ship",
    });
    expect(response.prompts.map((p) => p.topic)).toEqual(
      expect.arrayContaining(request.catalogue_seeds.map((s) => s.topic)),
    );
  });

  it("sends the configured model name to its endpoint", async () => {
    const { generator, server } = await openAiAnswering(
      () => ({ status: 200, body: completion(JSON.stringify({ prompts: MODEL_PROMPTS })) }),
      { model: "llama-3.1-8b-instruct" },
    );
    await generator.generate(request);
    expect(JSON.parse(server.received[0]!.body).model).toBe("llama-3.1-8b-instruct");
  });

  it("falls back to json_object when the server rejects json_schema", async () => {
    const { generator, server } = await openAiAnswering((index) =>
      index === 0
        ? { status: 400, body: { error: { message: "response_format json_schema is not supported" } } }
        : { status: 200, body: completion(JSON.stringify({ prompts: MODEL_PROMPTS.map((p) => p.prompt) })) },
    );
    const response = await generator.generate(request);
    expect(server.received.map((r) => JSON.parse(r.body).response_format.type)).toEqual([
      "json_schema",
      "json_object",
    ]);
    expect(response.ship_summary.verdict).toBe("ship");
    // Plain strings carry no category: ours are inferred from the text.
    for (const prompt of response.prompts) expect(prompt.category).not.toBe("");
  });

  it("fails as rejected when the fallback is refused too", async () => {
    const { generator, server } = await openAiAnswering(() => ({ status: 422, body: { error: "no" } }));
    const error = await failureOf(generator.generate(request));
    expect([error.kind, error.retryable, error.status]).toEqual(["rejected", false, 422]);
    expect(server.received).toHaveLength(2);
  });

  it("times out on the injected clock", async () => {
    const { generator, server, clock } = await openAiAnswering(() => "hang");
    const pending = failureOf(generator.generate(request));
    await waitFor(() => server.received.length === 1 && clock.pendingSleeps === 1);
    clock.advance(300_000);
    expect((await pending).kind).toBe("timeout");
  });

  it("stops when the caller aborts", async () => {
    const { generator, server } = await openAiAnswering(() => "hang");
    const controller = new AbortController();
    const pending = failureOf(generator.generate(request, { signal: controller.signal }));
    await waitFor(() => server.received.length === 1);
    controller.abort();
    expect((await pending).kind).toBe("aborted");
  });

  it("classifies 5xx as retryable and never retries it itself", async () => {
    const { generator, server } = await openAiAnswering(() => ({ status: 502, body: "bad gateway" }));
    const error = await failureOf(generator.generate(request));
    expect([error.kind, error.retryable, error.status]).toEqual(["server_error", true, 502]);
    expect(server.received).toHaveLength(1);
  });

  it("fails as unparseable on malformed JSON, at any level", async () => {
    const answers: FakeAnswer[] = [
      { status: 200, body: "{not json", contentType: "application/json" },
      { status: 200, body: { choices: [] } },
      { status: 200, body: completion(null) },
      { status: 200, body: completion("Sure! Here are some prompts: 1. …") },
      { status: 200, body: completion(JSON.stringify({ questions: ["Quelle creme choisir ?"] })) },
    ];
    for (const answer of answers) {
      const { generator } = await openAiAnswering(() => answer);
      const error = await failureOf(generator.generate(request));
      expect([error.kind, error.retryable], JSON.stringify(answer)).toEqual(["unparseable", false]);
      await server!.close();
      server = undefined;
    }
  });
});
