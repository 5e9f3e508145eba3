import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { runAudit } from "../../../src/operations/audit.ts";
import { runCli } from "../../support/cli.ts";
import {
  CREDENTIAL_KEY,
  ledgerOf,
  mutatingCalls,
  type OperatorWorld,
  PARENT,
  seedOrg,
  startOperatorWorld,
  THREE_CARVED_BRANDS,
  TOKEN,
} from "../../support/operatorWorld.ts";

/**
 * `serenity audit` (spec/operations.md §2) on a known setup, and both operator commands as real
 * child processes (argument validation, a dry run, a real run, the audit's table and json).
 *
 * Every test seeds `THREE_CARVED_BRANDS` (operatorWorld.ts, with the numbers a sweep must give).
 */

let world: OperatorWorld;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  world = await startOperatorWorld();
  dir = await mkdtemp(path.join(tmpdir(), "serenity-audit-"));
  env = {
    DATABASE_URL: world.db.url,
    SEMRUSH_PROJECTS_BASE_URL: world.sim.url,
    SERENITY_CREDENTIAL_KEY: CREDENTIAL_KEY,
    SERENITY_DATA_DIR: dir,
    SERENITY_UPSTREAM_TOKEN: TOKEN,
  };
});
afterAll(() => world?.close());

async function freshSetup() {
  await world.sim.control("/reset", {});
  const seeded = await seedOrg(world, THREE_CARVED_BRANDS);
  await world.sim.clearCalls();
  return seeded;
}

describe("serenity audit (service)", () => {
  it("reports allocation, usage and stranded units per brand and the pool after a sweep per org", async () => {
    const { orgId, brands } = await freshSetup();

    const report = await runAudit(
      {
        db: world.runtime.database.db,
        logger: world.runtime.logger,
        poolView: world.runtime.services.poolView,
      },
      { bearer: TOKEN, orgIds: [orgId], now: () => new Date() },
    );

    expect(await mutatingCalls(world)).toEqual([]);
    expect(report.orgs).toHaveLength(1);
    const org = report.orgs[0]!;
    expect(org).toMatchObject({
      orgId,
      parentWorkspaceId: PARENT,
      pool: { projects: { total: 4, free: 4 }, prompts: { total: 200, free: 200 } },
      strandedSum: { projects: 6, prompts: 400 },
      poolFreeAfterSweep: { projects: 9, prompts: 400 },
    });
    expect(
      org.brands.map((brand) => [
        brand.brandId,
        brand.projects,
        brand.prompts,
        brand.stranded,
        brand.sweepReturns,
      ]),
    ).toEqual([
      [
        brands[0]!.brandId,
        { total: 5, used: 1, drafted: 0, free: 4 },
        { total: 300, used: 150, drafted: 0, free: 150 },
        { projects: 4, prompts: 100 },
        { projects: 4, prompts: 100 },
      ],
      [
        brands[1]!.brandId,
        { total: 3, used: 2, drafted: 0, free: 1 },
        { total: 200, used: 0, drafted: 0, free: 200 },
        { projects: 1, prompts: 200 },
        { projects: 1, prompts: 100 },
      ],
      [
        brands[2]!.brandId,
        { total: 1, used: 0, drafted: 0, free: 1 },
        { total: 100, used: 0, drafted: 0, free: 100 },
        { projects: 1, prompts: 100 },
        { projects: 0, prompts: 0 },
      ],
    ]);
  });
});

// A hang guard, not a speed target: each test starts two to four real `serenity` child processes
// in sequence, and each loads TypeScript through tsx; on a loaded 2-core machine one start took
// over 15 s, so the default 60 s cut a passing test short.
describe("serenity sweep / audit (CLI)", { timeout: 300_000 }, () => {
  it("a non-number for a numeric option exits 1 before touching anything", async () => {
    const bad = await runCli(["sweep", "--rate-limit-ms", "abc"], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/rate-limit-ms/);
    const badFloor = await runCli(["sweep", "--floor", "1"], env);
    expect(badFloor.code).toBe(1);
    const brandsWithoutOrgs = await runCli(
      ["sweep", "--brand-ids", "3f1c7a52-5d7e-4f5b-9a53-0d7c2a1b9e10"],
      env,
    );
    expect(brandsWithoutOrgs.code).toBe(1);
    expect(brandsWithoutOrgs.stderr).toMatch(/--brand-ids requires --org-ids/);
  });

  it("audit prints the known numbers as json and as a table; a dry run then a real sweep change the pool as audited", async () => {
    const { orgId, brands } = await freshSetup();

    const json = await runCli(["audit", "--org-ids", orgId, "--format", "json"], env);
    expect(json.code, json.stderr).toBe(0);
    const audited = JSON.parse(json.stdout);
    expect(audited.orgs[0]).toMatchObject({
      orgId,
      strandedSum: { projects: 6, prompts: 400 },
      poolFreeAfterSweep: { projects: 9, prompts: 400 },
    });

    const table = await runCli(["audit", "--org-ids", orgId], env);
    expect(table.code, table.stderr).toBe(0);
    const poolRow = table.stdout.split("\n").find((line) => line.includes("(pool)"))!;
    expect(poolRow.split(/\s+/)).toEqual([
      orgId,
      "(pool)",
      PARENT,
      "4",
      "0",
      "0",
      "6",
      "200",
      "0",
      "0",
      "400",
      "4",
      "200",
      "9",
      "400",
    ]);
    const brandRow = table.stdout.split("\n").find((line) => line.includes(brands[1]!.brandId))!;
    expect(brandRow.split(/\s+/).slice(3)).toEqual(["3", "2", "0", "1", "200", "0", "0", "200"]);

    const dry = await runCli(
      ["sweep", "--dry-run", "--json", "--org-ids", orgId, "--rate-limit-ms", "0"],
      env,
    );
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ dryRun: true, counts: { dryRun: 3 } });
    expect(await mutatingCalls(world)).toEqual([]);

    const real = await runCli(["sweep", "--org-ids", orgId, "--rate-limit-ms", "0", "--fresh"], env);
    expect(real.code, real.stderr).toBe(0);
    expect(real.stdout).toMatch(/released\s+2/);
    expect(real.stdout).toMatch(new RegExp(`${PARENT}\\s+5\\s+200`));
    expect(await world.sim.totals(PARENT)).toEqual({ projects: 9, prompts: 400 });
    expect((await ledgerOf(world, orgId)).map((row) => row.reason)).toEqual(["sweep", "sweep"]);
  });

  it("without a token both commands exit 1 and say how to give one", async () => {
    const tokenless = { ...env, SERENITY_UPSTREAM_TOKEN: "" };
    const sweep = await runCli(["sweep", "--dry-run"], tokenless);
    expect(sweep.code).toBe(1);
    expect(sweep.stderr).toMatch(/SERENITY_UPSTREAM_TOKEN or pass --token-file/);
    const tokenFile = path.join(dir, "token");
    await writeFile(tokenFile, `${TOKEN}\n`);
    const audit = await runCli(["audit", "--format", "csv", "--token-file", tokenFile], tokenless);
    expect(audit.code, audit.stderr).toBe(0);
    expect(audit.stdout.split("\n")[0]).toMatch(/^org,brand,subWorkspace,projectsTotal/);
  });
});
