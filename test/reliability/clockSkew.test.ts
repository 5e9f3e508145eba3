import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";

import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { DEFAULT_LOCK_TTL_MS } from "../../src/allocation/databaseAllocationLock.ts";
import { signDevToken } from "../../src/auth/tokenVerifier.ts";
import { jobLeaseTtlMs } from "../../src/jobs/jobLease.ts";
import { DEFAULT_BRAND_LEASE_TTL_MS } from "../../src/locks/brandLease.ts";
import { apiProcessSide } from "../support/apiProcessSide.ts";
import { createTestDatabase, type TestDatabase } from "../support/database.ts";
import { expectInvariants, liveJobCount } from "../support/reliabilityInvariants.ts";
import { type ServeProcess, spawnServe } from "../support/serveProcess.ts";
import { startTestSimulator, type TestSimulator } from "../support/simulator.ts";
import { waitFor } from "../support/wait.ts";

/**
 * Leases across processes whose clocks disagree (spec/provisioning.md §10, docs/decisions/0023):
 * three real `serve --with-worker` processes on one database, one on the machine's clock, one
 * started under libfaketime 5 minutes ahead and one 5 minutes behind. Under the lifecycle race of
 * a market create on one brand met by a deactivate from a process with another clock — both ways
 * round — and a provisioning load spread over all three, no live lease is ever taken over.
 *
 * Every change of a lease row (brand leases, allocation locks, job leases, the upstream
 * reconciler's org runs) is recorded by a
 * trigger into `lease_log`, stamped on the database's clock: who held it, until when, and who
 * came next. The test reads that table: every acquire and renewal wrote an expiry one TTL after
 * it happened on the database's clock (none from a shifted process clock), no takeover of a lease
 * still live, and no two holders of one lease at any moment. Then every job is terminal, the pool is conserved and nothing is left
 * untracked upstream.
 */
const SECRET = "clock-skew-test-secret-0123456789abcdef";
const POOL = { projects: 40, prompts: 2_400 };
const LOAD = 6;
const TIMEOUT_MS = 600_000;
/** The upstream reconciler's org-run lease: max(5 min, 2 × the 2 s interval), upstreamReconcileSchedule.ts. */
const RECONCILE_RUN_LEASE_MS = 5 * 60_000;
/**
 * How far a written expiry may sit from `at` + TTL: `at` is the trigger's clock_timestamp(), the
 * expiry is computed from the statement's database time, a moment earlier (longer under load).
 * A clock 5 minutes off is 300 s away.
 */
const TTL_TOLERANCE_MS = 20_000;

let db: TestDatabase;
let sim: TestSimulator;
let dataDir: string;
let parentId: string;
const procs: Record<"even" | "ahead" | "behind", ServeProcess | undefined> = {
  even: undefined,
  ahead: undefined,
  behind: undefined,
};

/** Records every acquire, renewal, takeover and release of the three lease tables. */
const LEASE_LOG = sql.raw(`
  create table lease_log (
    id bigserial primary key,
    kind text not null,
    key text not null,
    op text not null,
    old_holder text,
    new_holder text,
    old_expires_at timestamptz,
    new_expires_at timestamptz,
    at timestamptz not null default clock_timestamp()
  );
`);

/** A trigger per lease table, each writing its changes into `lease_log` under common names. */
async function installLeaseLog(database: TestDatabase): Promise<void> {
  await database.db.execute(LEASE_LOG);
  await database.db.execute(
    sql.raw(`
    create function log_brand_lease() returns trigger language plpgsql as $$
    begin
      if tg_op = 'DELETE' then
        insert into lease_log (kind, key, op, old_holder, old_expires_at)
        values ('brand', old.brand_id::text, 'release', old.holder::text, old.expires_at);
        return old;
      end if;
      insert into lease_log (kind, key, op, old_holder, new_holder, old_expires_at, new_expires_at)
      values ('brand', new.brand_id::text,
        case when tg_op = 'INSERT' or old.holder is distinct from new.holder then 'acquire' else 'renew' end,
        case when tg_op = 'UPDATE' then old.holder::text end, new.holder::text,
        case when tg_op = 'UPDATE' then old.expires_at end, new.expires_at);
      return new;
    end $$;
    create trigger brand_lease_log after insert or update or delete on brand_leases
      for each row execute function log_brand_lease();

    create function log_allocation_lock() returns trigger language plpgsql as $$
    begin
      if tg_op = 'DELETE' then
        insert into lease_log (kind, key, op, old_holder, old_expires_at)
        values ('allocation', old.sub_workspace_id::text, 'release', old.holder::text, old.expires_at);
        return old;
      end if;
      insert into lease_log (kind, key, op, old_holder, new_holder, old_expires_at, new_expires_at)
      values ('allocation', new.sub_workspace_id::text,
        case when tg_op = 'INSERT' or old.holder is distinct from new.holder then 'acquire' else 'renew' end,
        case when tg_op = 'UPDATE' then old.holder::text end, new.holder::text,
        case when tg_op = 'UPDATE' then old.expires_at end, new.expires_at);
      return new;
    end $$;
    create trigger allocation_lock_log after insert or update or delete on allocation_locks
      for each row execute function log_allocation_lock();

    create function log_job_lease() returns trigger language plpgsql as $$
    begin
      if old.lease_token is not distinct from new.lease_token
         and old.lease_expires_at is not distinct from new.lease_expires_at then
        return new;
      end if;
      insert into lease_log (kind, key, op, old_holder, new_holder, old_expires_at, new_expires_at)
      values ('job', new.id::text,
        case when new.lease_token is null then 'release'
             when old.lease_token is distinct from new.lease_token then 'acquire' else 'renew' end,
        old.lease_token::text, new.lease_token::text, old.lease_expires_at, new.lease_expires_at);
      return new;
    end $$;
    create trigger job_lease_log after update on jobs
      for each row execute function log_job_lease();

    create function log_reconcile_run() returns trigger language plpgsql as $$
    begin
      if tg_op = 'UPDATE' and old.holder is not distinct from new.holder
         and old.lease_expires_at is not distinct from new.lease_expires_at then
        return new;
      end if;
      insert into lease_log (kind, key, op, old_holder, new_holder, old_expires_at, new_expires_at)
      values ('reconcile', new.org_id::text,
        case when new.holder is null then 'release'
             when tg_op = 'INSERT' or old.holder is distinct from new.holder then 'acquire' else 'renew' end,
        case when tg_op = 'UPDATE' then old.holder::text end, new.holder::text,
        case when tg_op = 'UPDATE' then old.lease_expires_at end, new.lease_expires_at);
      return new;
    end $$;
    create trigger reconcile_run_log after insert or update on upstream_reconcile_runs
      for each row execute function log_reconcile_run();
  `),
  );
}

interface LeaseEvent {
  kind: string;
  key: string;
  op: string;
  old_holder: string | null;
  new_holder: string | null;
  old_expires_at: Date | null;
  new_expires_at: Date | null;
  at: Date;
}

/**
 * Each holder's tenure per lease, on the database's clock: from its acquire to its release, or to
 * the last expiry it was granted when it never released (a holder that stopped renewing).
 */
function tenures(events: LeaseEvent[]): Map<string, { holder: string; from: number; to: number }[]> {
  const byLease = new Map<string, { holder: string; from: number; to: number }[]>();
  for (const event of events) {
    const lease = `${event.kind}:${event.key}`;
    const list = byLease.get(lease) ?? [];
    byLease.set(lease, list);
    const current = list.at(-1);
    const at = new Date(event.at).getTime();
    if (event.op === "acquire") {
      if (current && current.to === Number.POSITIVE_INFINITY) {
        // Taken from a holder that never released: its tenure ends when its lease did.
        current.to = new Date(event.old_expires_at!).getTime();
      }
      list.push({ holder: event.new_holder!, from: at, to: Number.POSITIVE_INFINITY });
    } else if (event.op === "release" && current && current.holder === event.old_holder) {
      current.to = Math.min(current.to, at);
    }
    if (event.op === "renew" && current) current.to = Number.POSITIVE_INFINITY;
  }
  for (const list of byLease.values()) {
    const last = list.at(-1);
    if (last && last.to === Number.POSITIVE_INFINITY) last.to = last.from; // still held or lapsed
  }
  return byLease;
}

function env(): Record<string, string> {
  return {
    DATABASE_URL: db.url,
    SERENITY_DATA_DIR: dataDir,
    SERENITY_AUTH_SECRET: SECRET,
    SERENITY_CREDENTIAL_KEY: credentialKey,
    SEMRUSH_PROJECTS_BASE_URL: sim.url,
    SEMRUSH_USERS_BASE_URL: sim.url,
    SERENITY_DYNAMIC_ALLOCATION: "true",
    // The upstream reconciler's org lease is one of the leases: every process tries to take the
    // org's run every 2 s (its grace stays the default 10 min, so it only observes here).
    SERENITY_UPSTREAM_RECONCILE_INTERVAL_MS: "2000",
    SERENITY_DB_ACQUIRE_TIMEOUT_MS: "60000",
  };
}
const credentialKey = randomBytes(32).toString("base64");

async function http(
  base: string,
  token: string,
  method: string,
  route: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${base}${route}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** How far a process's wall clock is from this one's, read off its HTTP `Date` header (seconds). */
async function clockOffsetSeconds(base: string): Promise<number> {
  const response = await fetch(`${base}/healthz`);
  await response.text();
  return (new Date(response.headers.get("date")!).getTime() - Date.now()) / 1000;
}

beforeAll(async () => {
  db = await createTestDatabase();
  await installLeaseLog(db);
  // ~6 upstream calls per market create at 300 ms each: the create holds its brand's lease for
  // seconds, long enough for the deactivate to arrive while it is held.
  sim = await startTestSimulator({ seed: "gold", settings: { latencyMs: 300, settleReads: 0 } });
  parentId = await sim.addParent({ title: "Skew parent", ...POOL });
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "serenity-skew-"));
  const [even, ahead, behind] = await Promise.all([
    spawnServe(env(), { withWorker: true }),
    spawnServe(env(), { withWorker: true, clockOffset: "+5m" }),
    spawnServe(env(), { withWorker: true, clockOffset: "-5m" }),
  ]);
  Object.assign(procs, { even, ahead, behind });
}, TIMEOUT_MS);
afterAll(async () => {
  await Promise.all(Object.values(procs).map((proc) => proc?.stop()));
  await sim?.close();
  await db?.destroy();
  if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
});

describe("processes whose clocks are 5 minutes apart", () => {
  it(
    "take over no live lease under the lifecycle race and a provisioning load; invariants hold",
    { timeout: TIMEOUT_MS },
    async () => {
      const even = procs.even!.url;
      const ahead = procs.ahead!.url;
      const behind = procs.behind!.url;
      // libfaketime reaches each shifted process's clock (its Date header), not the database's.
      expect(Math.abs(await clockOffsetSeconds(even))).toBeLessThan(60);
      expect(Math.abs((await clockOffsetSeconds(ahead)) - 300)).toBeLessThan(60);
      expect(Math.abs((await clockOffsetSeconds(behind)) + 300)).toBeLessThan(60);

      const admin = await signDevToken(SECRET, { sub: "admin", admin: true });
      const org = await http(even, admin, "POST", "/v2/orgs", {
        name: "Skew org",
        parentWorkspaceId: parentId,
      });
      expect(org.status).toBe(201);
      const orgId = org.body.id as string;
      const token = await signDevToken(SECRET, { sub: "user-1", orgs: [orgId] });
      const brands = `/v2/orgs/${orgId}/brands`;

      const newBrand = async (name: string, base = even) => {
        const created = await http(base, token, "POST", brands, {
          name,
          domain: `${name.toLowerCase().replaceAll(" ", "-")}.example`,
          semrushMarket: { market: "US", languageCode: "en" },
        });
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        const brandId = created.body.id as string;
        const activated = await http(base, token, "POST", `${brands}/${brandId}/serenity/activate`, {
          markets: [{ market: "US", languageCode: "en" }],
        });
        expect([200, 201], JSON.stringify(activated.body)).toContain(activated.status);
        return brandId;
      };

      /** A market create on `creator`; once it holds the brand's lease, a deactivate on `other`. */
      const race = async (brandId: string, creator: string, other: string) => {
        const base = `${brands}/${brandId}/serenity`;
        const since = new Date();
        const creating = http(creator, token, "POST", `${base}/markets`, {
          market: "FR",
          languageCode: "fr",
        });
        await waitFor(
          async () =>
            (
              await db.db.execute(
                sql`select 1 from brand_leases where brand_id = ${brandId}::uuid and expires_at > clock_timestamp()`,
              )
            ).rows.length > 0,
          { timeoutMs: 60_000, what: "the market create holding the brand's lease" },
        );
        const deactivating = http(other, token, "POST", `${base}/deactivate`, {});
        const [created, deactivated] = await Promise.all([creating, deactivating]);
        // The create is never cut short by a takeover; the deactivate waited its turn (or gave up
        // busy, never proceeding unserialised).
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        expect([200, 503], JSON.stringify(deactivated.body)).toContain(deactivated.status);
        if (deactivated.status === 503) expect(deactivated.body.code).toBe("brandBusy");
        return { since, deactivated: deactivated.status };
      };

      const raceBrandA = await newBrand("Skew race ahead");
      const raceBrandB = await newBrand("Skew race behind", behind);
      // A provisioning load over all three processes while the races run.
      const bases = [even, ahead, behind];
      const load = Promise.all(
        Array.from({ length: LOAD }, (_, index) =>
          http(bases[index % 3]!, token, "POST", brands, {
            name: `Skew load ${index}`,
            domain: `skew-load-${index}.example`,
            semrushMarket: { market: "US", languageCode: "en" },
            async: true,
          }),
        ),
      );
      const outcomes = [await race(raceBrandA, even, ahead), await race(raceBrandB, behind, ahead)];
      for (const answer of await load) expect(answer.status, JSON.stringify(answer.body)).toBe(202);

      // Every job terminal: retry delays are made due on every look (the queue's notion of time).
      await waitFor(
        async () => {
          await db.db.execute(
            sql`update pgboss.job set start_after = now() - interval '1 second' where state in ('created', 'retry')`,
          );
          return (await liveJobCount(db)) === 0;
        },
        { timeoutMs: 300_000, what: "every job terminal" },
      );

      // The lease log: no live lease taken over, no two holders of one lease at any moment.
      const events = (
        await db.db.execute<LeaseEvent & { job_type: string | null } & Record<string, unknown>>(
          sql`select l.*, j.type as job_type from lease_log l
              left join jobs j on l.kind = 'job' and j.id::text = l.key order by l.id`,
        )
      ).rows;
      expect(events.filter((event) => event.kind === "brand").length).toBeGreaterThan(0);
      expect(events.filter((event) => event.kind === "job").length).toBeGreaterThan(0);
      expect(
        events.filter((event) => event.kind === "reconcile" && event.op === "acquire").length,
      ).toBeGreaterThan(1);
      const liveTakeovers = events.filter(
        (event) =>
          event.op === "acquire" &&
          event.old_holder !== null &&
          event.old_holder !== event.new_holder &&
          event.old_expires_at !== null &&
          new Date(event.old_expires_at).getTime() > new Date(event.at).getTime(),
      );
      expect(liveTakeovers).toEqual([]);
      // Every acquire and renewal set its expiry one TTL after it happened on the database's
      // clock. The checks above trust the expiries the processes wrote: a lease stamped from the
      // clock 5 minutes behind would be expired by the database's clock as it was written, and a
      // takeover of it would pass them; this one does not.
      const side = apiProcessSide({ db: db.db, url: db.url }, sim.url);
      const ttlOf = (event: (typeof events)[number]): number => {
        if (event.kind === "brand") return DEFAULT_BRAND_LEASE_TTL_MS;
        if (event.kind === "allocation") return DEFAULT_LOCK_TTL_MS;
        if (event.kind === "reconcile") return RECONCILE_RUN_LEASE_MS;
        const handler = side.services.jobs.registry.get(event.job_type ?? "");
        if (!handler) throw new Error(`a job lease of an unknown type: ${event.job_type}`);
        return jobLeaseTtlMs(handler);
      };
      const offTtl = events
        .filter((event) => (event.op === "acquire" || event.op === "renew") && event.new_expires_at !== null)
        .map((event) => ({
          lease: `${event.kind}:${event.key}`,
          op: event.op,
          ttlMs: ttlOf(event),
          writtenMs: new Date(event.new_expires_at!).getTime() - new Date(event.at).getTime(),
        }))
        .filter(
          ({ ttlMs, writtenMs }) =>
            writtenMs > ttlMs + TTL_TOLERANCE_MS || writtenMs < ttlMs - TTL_TOLERANCE_MS,
        );
      expect(offTtl).toEqual([]);
      const overlaps: string[] = [];
      for (const [lease, list] of tenures(events)) {
        for (let i = 1; i < list.length; i++) {
          if (list[i]!.from < list[i - 1]!.to)
            overlaps.push(`${lease}: ${list[i - 1]!.holder} and ${list[i]!.holder}`);
        }
      }
      expect(overlaps).toEqual([]);
      // Each race: the deactivate's lease came after the create's was released.
      for (const [index, brandId] of [raceBrandA, raceBrandB].entries()) {
        const list = tenures(events.filter((event) => event.kind === "brand" && event.key === brandId)).get(
          `brand:${brandId}`,
        )!;
        const after = list.filter((tenure) => tenure.from >= outcomes[index]!.since.getTime());
        expect(after.length).toBeGreaterThanOrEqual(outcomes[index]!.deactivated === 200 ? 2 : 1);
      }

      // Pool conserved, zero orphans, every brand consistent with upstream (observed, not acted on).
      try {
        const target = { id: orgId, parentWorkspaceId: parentId };
        await expectInvariants(db, {
          orgId,
          parentWorkspaceId: parentId,
          dump: await sim.dump(),
          observation: await side.reconciler.observe(target, token),
          pool: POOL,
        });
      } finally {
        await side.gateway.close();
      }
    },
  );
});
