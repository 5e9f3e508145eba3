import { afterEach, beforeAll, describe, expect, it } from "vitest";

import {
  createPromptGenerator,
  lazyLanguageValidator,
} from "../../../src/generation/createPromptGenerator.ts";
import { generationJobMetadataSchema } from "../../../src/generation/generationJobMetadata.ts";
import { readGeneratorSettings } from "../../../src/generation/generatorSettings.ts";
import type { PromptGenerator } from "../../../src/generation/promptGenerator.ts";
import { boundSeeds } from "../../../src/generation/seeds.ts";
import { toGenerationRequest } from "../../../src/generation/toGenerationRequest.ts";
import type { GenerationRequest } from "../../../src/generation/wire.ts";
import { brandTopicsFor } from "../../../src/simulator/catalogue/brandTopics.ts";
import {
  type FakeGeneratorServer,
  type ReceivedRequest,
  startFakeGeneratorServer,
} from "../../support/fakeGeneratorServer.ts";
import { DRS_CONTRACT } from "../../support/generationFixtures.ts";

/**
 * "No token ever reaches a generator" (spec/generation.md §4, §6): whatever a job's record carries
 * beside its metadata (the caller's bearer, the sealed credential's id), what each generator
 * receives — the builtin's input, the DRS service's request, the OpenAI endpoint's request — holds
 * neither; the only authorization anywhere is the OpenAI endpoint's own configured key.
 */

const USER_TOKEN =
  "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyLTEiLCJvcmciOiJvcmctMSJ9.c2lnbmF0dXJlLW9mLXRoZS11c2Vy";
const CREDENTIAL_ID = "5b0f6a0e-8f31-4d7e-a1c2-7d2f1e9b3c44";
const OPENAI_KEY = "sk-serenity-operator-key";

/** What a job record could hold around the generation metadata, including things that must not leak. */
const STORED_METADATA = {
  brandId: "0c400d4b-9a1e-4f2b-8c7d-1e2f3a4b5c6d",
  orgId: "org-1",
  workspaceId: "ws-1",
  geoTargetId: 2250,
  languageCode: "fr",
  market: "FR",
  baseUrl: "https://lumiere.example",
  brand: "Lumiere",
  aliases: ["Lumiere Paris"],
  count: 10,
  seeds: boundSeeds(brandTopicsFor("lumiere.example", "fr")),
  callerId: "user-1",
  credentialId: CREDENTIAL_ID,
  bearer: USER_TOKEN,
  authorization: `Bearer ${USER_TOKEN}`,
};

function requestFromStoredMetadata(): GenerationRequest {
  const metadata = generationJobMetadataSchema.parse(STORED_METADATA);
  return toGenerationRequest(metadata, { imsOrgId: "ABCDEF1234567890ABCDEF01@AdobeOrg" });
}

function expectNoCredential(text: string) {
  expect(text).not.toContain(USER_TOKEN);
  expect(text).not.toContain(USER_TOKEN.split(".")[1]!);
  expect(text).not.toContain(CREDENTIAL_ID);
  expect(text).not.toMatch(/bearer/i);
}

const validator = lazyLanguageValidator();
let server: FakeGeneratorServer | undefined;
beforeAll(async () => {
  await validator();
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function everythingReceived(received: ReceivedRequest[]): string {
  return received
    .map((r) => `${r.method} ${r.path}\n${JSON.stringify(r.headers)}\n${r.body}`)
    .join("\n---\n");
}

describe("no credential reaches a generator", () => {
  it("builtin: its whole input is the mapped request, and it holds no credential", async () => {
    const builtin = createPromptGenerator(readGeneratorSettings({}), { languageValidator: validator });
    const inputs: unknown[] = [];
    const spy: PromptGenerator = {
      name: builtin.name,
      generate: (request, options) => {
        inputs.push(request, options);
        return builtin.generate(request, options);
      },
    };
    const response = await spy.generate(requestFromStoredMetadata(), {});
    expect(response.ship_summary.verdict).toBe("ship");
    expect(inputs).toHaveLength(2);
    expectNoCredential(JSON.stringify(inputs));
  });

  it("drs: the service receives the request and no authorization at all", async () => {
    server = await startFakeGeneratorServer(() => ({ status: 200, body: DRS_CONTRACT.response as object }));
    const drs = createPromptGenerator(
      readGeneratorSettings({ SERENITY_PROMPT_GENERATOR: "drs", SERENITY_DRS_URL: server.url }),
      {
        languageValidator: validator,
      },
    );
    await drs.generate(requestFromStoredMetadata());
    expect(server.received).toHaveLength(1);
    expect(server.received[0]!.headers).not.toHaveProperty("authorization");
    expect(server.received[0]!.headers).not.toHaveProperty("cookie");
    expectNoCredential(everythingReceived(server.received));
    expect(JSON.parse(server.received[0]!.body)).toEqual(requestFromStoredMetadata());
  });

  it("openai: the endpoint receives only its own configured key", async () => {
    server = await startFakeGeneratorServer(() => ({
      status: 200,
      body: { choices: [{ message: { content: JSON.stringify({ prompts: [] }) } }] },
    }));
    const openai = createPromptGenerator(
      readGeneratorSettings({
        SERENITY_PROMPT_GENERATOR: "openai",
        SERENITY_OPENAI_BASE_URL: server.url,
        SERENITY_OPENAI_API_KEY: OPENAI_KEY,
      }),
      { languageValidator: validator },
    );
    await openai.generate(requestFromStoredMetadata());
    expect(server.received).toHaveLength(1);
    const { authorization, ...otherHeaders } = server.received[0]!.headers;
    expect(authorization).toBe(`Bearer ${OPENAI_KEY}`);
    expectNoCredential(JSON.stringify(otherHeaders));
    expectNoCredential(server.received[0]!.body);
  });
});
