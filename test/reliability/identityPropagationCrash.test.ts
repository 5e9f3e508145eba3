import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { Principal } from "../../src/auth/principal.ts";
import { signDevToken } from "../../src/auth/tokenVerifier.ts";
import { brands, markets } from "../../src/db/schema.ts";
import { domainKey, projectBrandNames } from "../../src/domain/brandIdentity.ts";
import { type FaultWorld, startFaultWorld } from "../support/faultWorld.ts";
import { liveJobCount } from "../support/reliabilityInvariants.ts";
import { waitFor } from "../support/wait.ts";
import type { WorkerProcess } from "../support/workerProcess.ts";

/**
 * A real SIGKILL of the worker in the middle of a brand's identity propagation (issue 37, item 2;
 * the pattern of marketCreationCrash.test.ts): once a benchmark create of the first identity has
 * reached upstream the worker dies; a second PATCH lands while no worker runs; a second worker
 * takes the jobs over once their leases have expired (moved into the past, no waiting). When every
 * job has ended, every market's project carries the LAST identity exactly — brand names, one
 * benchmark per competitor domain (nothing duplicated upstream), CI competitors, brand URLs — and
 * every market records the brand's version.
 */
describe("a worker killed during an identity propagation", () => {
  let world: FaultWorld;
  const workers: WorkerProcess[] = [];

  beforeAll(async () => {
    world = await startFaultWorld({ latencyMs: 40 });
  });
  afterAll(async () => {
    for (const worker of workers) {
      worker.child.kill("SIGKILL");
      await worker.exited;
    }
    await world?.close();
  });

  it(
    "converges: every market equals the last identity, nothing duplicated upstream",
    { timeout: 600_000 },
    async () => {
      const first = world.spawnWorker();
      workers.push(first);
      await first.started;
      const { brandId } = await world.createBrand("Propagated");
      await waitFor(async () => (await liveJobCount(world.db)) === 0, {
        timeoutMs: 300_000,
        what: "the brand provisioned with its first market",
      });
      // The same user the harness creates brands with (its token is what the jobs go upstream with).
      const bearer = await signDevToken("harness-test-secret-long-enough-0123456789", {
        sub: "user-1",
        orgs: [world.orgId],
      });
      const user: Principal = { sub: "user-1", orgIds: [world.orgId], isAdmin: false, bearer };
      const activated = await world.services.brandLifecycle.activate(
        user,
        world.orgId,
        brandId,
        {
          markets: [
            { market: "FR", languageCode: "fr" },
            { market: "DE", languageCode: "de" },
          ],
        },
        { requestId: undefined },
      );
      expect("done" in activated).toBe(true);

      await world.sim.control("/calls", undefined, "DELETE");
      await world.services.brandIdentity.update(user, world.orgId, brandId, {
        aliases: ["Propagated Co"],
        competitors: [
          { name: "Globex", domain: "globex.example" },
          { name: "Hooli", domain: "hooli.example" },
        ],
        urls: [{ url: "https://propagated.example/", kind: "owned" }],
      });
      await waitFor(
        async () =>
          (await world.sim.control<{ method: string; path: string }[]>("/calls")).some(
            (call) => call.method === "POST" && call.path.endsWith("/ai_models/benchmarks"),
          ),
        { timeoutMs: 120_000, what: "a benchmark create upstream" },
      );
      first.child.kill("SIGKILL");
      await first.exited;

      // A newer identity while no worker runs: the propagation that resumes must end on it.
      await world.services.brandIdentity.update(user, world.orgId, brandId, {
        aliases: ["Propagated Co", "PropCo"],
        competitors: [
          { name: "Globex", domain: "globex.example", aliases: ["Globex Corp"] },
          { name: "Initech", domain: "initech.example" },
        ],
        urls: [
          { url: "https://propagated.example/", kind: "owned" },
          { url: "https://social.example/propagated", kind: "social" },
        ],
      });
      await world.letLeasesExpire();
      const second = world.spawnWorker({ SERENITY_JOB_RECONCILE_INTERVAL_MS: "250" });
      workers.push(second);
      await second.started;
      await waitFor(async () => (await liveJobCount(world.db)) === 0, {
        timeoutMs: 300_000,
        what: "every job terminal",
      });
      second.child.kill("SIGTERM");
      await second.exited;

      const [brand] = await world.db.db.select().from(brands).where(eq(brands.id, brandId));
      const rows = await world.db.db.select().from(markets).where(eq(markets.brandId, brandId));
      expect(rows).toHaveLength(3);
      expect(rows.map((row) => row.identityVersion)).toEqual(rows.map(() => brand!.identityVersion));
      const dump = await world.sim.dump();
      for (const row of rows) {
        const project = dump.projects.find((p) => p.id === row.projectId)!;
        expect(project.brand_name_display).toBe("Propagated");
        expect(project.brand_names).toEqual(projectBrandNames(brand!));
        const main = project.benchmarks.filter((b) => b.main_brand);
        expect(main).toHaveLength(1);
        expect(main[0]!.brand_aliases).toEqual(["Propagated Co", "PropCo"]);
        const others = project.benchmarks.filter((b) => !b.main_brand);
        expect(others.map((b) => [domainKey(b.domain), b.brand_name, b.brand_aliases]).sort()).toEqual([
          ["globex.example", "Globex", ["Globex Corp"]],
          ["initech.example", "Initech", []],
        ]);
        expect(project.ci_competitors.map((c) => c.domain).sort()).toEqual([
          "globex.example",
          "initech.example",
        ]);
        expect(main[0]!.brand_urls.map((u) => [u.url, u.type])).toEqual([
          ["https://propagated.example/", "owned"],
          ["https://social.example/propagated", "social"],
        ]);
      }
    },
  );
});
