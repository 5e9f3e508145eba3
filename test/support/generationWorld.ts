import { sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, expect } from "vitest";

import { createBuiltinGenerator } from "../../src/generation/builtin/builtinGenerator.ts";
import { lazyLanguageValidator } from "../../src/generation/createPromptGenerator.ts";
import type { GenerationRequest } from "../../src/generation/wire.ts";
import { type AsyncProvisioningWorld, startAsyncProvisioningWorld } from "./asyncProvisioningWorld.ts";
import {
  type FakeAnswer,
  type FakeGeneratorServer,
  type ReceivedRequest,
  startFakeGeneratorServer,
} from "./fakeGeneratorServer.ts";
import { uniqueName } from "./provisioningWorld.ts";
import type { Answer } from "./testApp.ts";

/**
 * The generation suites' world: the asynchronous provisioning world (app + real gateway client
 * over HTTP to the simulator, ManualClock, a hand-driven worker on the app's registry) with
 * generation switched on through its own env object, operator settings read without a cache, and
 * a counting fake DRS service on 127.0.0.1 as the generator — by default it answers what the
 * builtin generator makes of the request, so every generator call is one request it received.
 */
export interface GenerationWorld extends AsyncProvisioningWorld {
  env: Record<string, string | undefined>;
  drs: FakeGeneratorServer;
  /** The DRS's next answers, first first; when empty it answers `builtinAnswer`. */
  drsScript: ((request: ReceivedRequest) => FakeAnswer | Promise<FakeAnswer>)[];
  builtinAnswer(request: ReceivedRequest): Promise<FakeAnswer>;
  /** Generator calls so far (requests the DRS received). */
  generatorCalls(): number;
  /** The worker heartbeats now (by the world's clock), so gate 2 sees a live generation worker. */
  heartbeat(): Promise<void>;
  /** An active brand with its sub-workspace and a US/en market, made without generation. */
  activeBrand(options?: { name?: string; domain?: string }): Promise<{ brandId: string; name: string }>;
  createMarket(brandId: string, body: Record<string, unknown>, token?: string): Promise<Answer>;
  pollGeneration(brandId: string, jobId: string, token?: string): Promise<Answer>;
  reauth(brandId: string, jobId: string, token?: string): Promise<Answer>;
  /** Every row of jobs and credentials (sealed bytes excepted) as text, for leak scans. */
  storedRows(): Promise<string>;
}

export async function startGenerationWorld(): Promise<GenerationWorld> {
  const drsScript: GenerationWorld["drsScript"] = [];
  const builtin = createBuiltinGenerator({ languageValidator: lazyLanguageValidator() });
  const builtinAnswer = async (request: ReceivedRequest): Promise<FakeAnswer> => ({
    status: 200,
    body: await builtin.generate(JSON.parse(request.body) as GenerationRequest),
  });
  const drs = await startFakeGeneratorServer((request) => (drsScript.shift() ?? builtinAnswer)(request));
  const env: Record<string, string | undefined> = {
    SERENITY_ASYNC_PROMPT_GEN: "true",
    SERENITY_PROMPT_GENERATOR: "drs",
    SERENITY_DRS_URL: drs.url,
  };
  const world = await startAsyncProvisioningWorld({ generationEnv: env, settingsCacheMs: 0 });
  const generation: GenerationWorld = Object.assign(world, {
    env,
    drs,
    drsScript,
    builtinAnswer,
    generatorCalls: () => drs.received.length,
    heartbeat: () => world.worker.heartbeat(),
    async activeBrand(options: { name?: string; domain?: string } = {}) {
      const name = options.name ?? uniqueName("Lumiere");
      const created = await world.call("POST", world.brandsUrl(), {
        name,
        domain: options.domain ?? "lumiere.example",
        semrushMarket: { market: "US", languageCode: "en" },
      });
      expect(created.status).toBe(201);
      return { brandId: created.body.id as string, name };
    },
    createMarket: (brandId: string, body: Record<string, unknown>, token?: string) =>
      world.call("POST", `${world.brandsUrl()}/${brandId}/serenity/markets`, body, token),
    pollGeneration: (brandId: string, jobId: string, token?: string) =>
      world.call(
        "GET",
        `${world.brandsUrl()}/${brandId}/serenity/markets/generation/jobs/${jobId}`,
        undefined,
        token,
      ),
    reauth: (brandId: string, jobId: string, token?: string) =>
      world.call(
        "POST",
        `${world.brandsUrl()}/${brandId}/serenity/markets/generation/jobs/${jobId}/reauth`,
        undefined,
        token,
      ),
    async storedRows() {
      const jobs = await world.t.db.db.execute(sql`select * from jobs`);
      const credentials = await world.t.db.db.execute(
        sql`select id, owner_sub, audience, expires_at, invalidated_at from credentials`,
      );
      return JSON.stringify([jobs.rows, credentials.rows]);
    },
  });
  const close = world.close;
  generation.close = async () => {
    await close();
    await drs.close();
  };
  return generation;
}

/** One world per file; before each test: no faults, generation on, a fresh heartbeat, an empty queue. */
export function useGenerationWorld(receive: (world: GenerationWorld) => void): void {
  let world: GenerationWorld;
  beforeAll(async () => {
    world = await startGenerationWorld();
    receive(world);
  });
  afterAll(() => world.close());
  beforeEach(async () => {
    await world.sim.control("/faults", undefined, "DELETE");
    world.env.SERENITY_ASYNC_PROMPT_GEN = "true";
    world.env.SERENITY_PROMPT_GENERATOR = "drs";
    world.env.SERENITY_DRS_URL = world.drs.url;
    world.drsScript.length = 0;
    await world.t.services.generation.settings.set("generation.consumerReady", "true");
    world.failEnqueues.value = false;
    await world.drain();
    await world.heartbeat();
    await world.sim.clearCalls();
    world.drs.received.length = 0;
  });
}
