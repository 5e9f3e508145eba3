import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";

import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { MIGRATIONS_FOLDER, runMigrations } from "../../../src/db/migrate.ts";
import { createEmptyDatabase } from "../../support/database.ts";
import { catalogueModelId } from "../../support/simulator.ts";

/**
 * Catalogue ids became the live UUIDs (ADR 0035). A database that stored the ids of the old
 * simulator catalogue (1–10) — a market's remembered model set, a create-market job not yet run —
 * gets each rewritten to the live id of the same model key; live ids, model keys and finished jobs
 * are left as they are.
 */
const BEFORE = "0019_live_catalogue_ids";
let database: { url: string; destroy(): Promise<void> };
let client: pg.Client;
let oldFolder: string;

beforeAll(async () => {
  database = await createEmptyDatabase();
  oldFolder = await fs.mkdtemp(path.join(os.tmpdir(), "serenity-migrations-"));
  const journal = JSON.parse(await fs.readFile(path.join(MIGRATIONS_FOLDER, "meta/_journal.json"), "utf8"));
  const cut = journal.entries.findIndex((entry: { tag: string }) => entry.tag === BEFORE);
  expect(cut).toBeGreaterThan(0);
  const kept = journal.entries.slice(0, cut);
  await fs.mkdir(path.join(oldFolder, "meta"));
  await fs.writeFile(
    path.join(oldFolder, "meta/_journal.json"),
    JSON.stringify({ ...journal, entries: kept }),
  );
  for (const entry of kept) {
    await fs.copyFile(
      path.join(MIGRATIONS_FOLDER, `${entry.tag}.sql`),
      path.join(oldFolder, `${entry.tag}.sql`),
    );
  }
  client = new pg.Client({ connectionString: database.url });
  await client.connect();
});
afterAll(async () => {
  await client?.end();
  await database?.destroy();
  await fs.rm(oldFolder, { recursive: true, force: true });
});

describe("stored catalogue ids migrate to the live ids by model key", () => {
  it("rewrites the old simulator's model ids in remembered model sets and pending create-market jobs", async () => {
    await migrate(drizzle(client), { migrationsFolder: oldFolder, migrationsSchema: "drizzle" });
    const org = (
      await client.query<{ id: string }>(
        "insert into orgs (name, created_at, updated_at) values ('Old', now(), now()) returning id",
      )
    ).rows[0]!.id;
    const brand = (
      await client.query<{ id: string }>(
        "insert into brands (org_id, name, status, created_at, updated_at) values ($1, 'Lumiere', 'active', now(), now()) returning id",
        [org],
      )
    ).rows[0]!.id;
    const market = async (geoTargetId: number, modelIds: unknown) => {
      const id = (
        await client.query<{ id: string }>(
          `insert into markets (brand_id, geo_target_id, language_code, country, workspace_id, project_id, created_at, updated_at)
           values ($1, $2, 'en', 'US', 'ws', $3, now(), now()) returning id`,
          [brand, geoTargetId, `p${geoTargetId}`],
        )
      ).rows[0]!.id;
      await client.query(
        "insert into market_models (market_id, project_id, model_ids, known_at) values ($1, $2, $3, now())",
        [id, `p${geoTargetId}`, JSON.stringify(modelIds)],
      );
      return id;
    };
    const legacy = await market(2840, ["1", "7", "2"]);
    const live = await market(2250, [catalogueModelId("gpt-5")]);
    const job = async (status: string, input: unknown) =>
      (
        await client.query<{ id: string }>(
          `insert into jobs (id, type, org_id, status, metadata, created_at, updated_at)
           values (gen_random_uuid(), 'createMarket', $1, $2, $3, now(), now()) returning id`,
          [org, status, JSON.stringify({ brandId: brand, input })],
        )
      ).rows[0]!.id;
    const pending = await job("IN_PROGRESS", {
      market: "DE",
      languageCode: "de",
      modelIds: ["10", "perplexity"],
    });
    const finished = await job("COMPLETED", { market: "NL", languageCode: "nl", modelIds: ["3"] });
    const keyless = await job("IN_PROGRESS", { market: "ES", languageCode: "es" });

    await runMigrations(database.url);

    const modelIds = async (id: string) =>
      (
        await client.query<{ model_ids: string[] }>(
          "select model_ids from market_models where market_id = $1",
          [id],
        )
      ).rows[0]!.model_ids;
    expect(await modelIds(legacy)).toEqual([
      catalogueModelId("search-gpt"),
      catalogueModelId("perplexity"),
      catalogueModelId("gpt-5"),
    ]);
    expect(await modelIds(live)).toEqual([catalogueModelId("gpt-5")]);
    const input = async (id: string) =>
      (await client.query<{ metadata: { input: unknown } }>("select metadata from jobs where id = $1", [id]))
        .rows[0]!.metadata.input;
    expect(await input(pending)).toEqual({
      market: "DE",
      languageCode: "de",
      modelIds: [catalogueModelId("microsoft-copilot"), "perplexity"],
    });
    expect(await input(finished)).toEqual({ market: "NL", languageCode: "nl", modelIds: ["3"] });
    expect(await input(keyless)).toEqual({ market: "ES", languageCode: "es" });
  });
});
