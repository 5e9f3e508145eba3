import { randomUUID } from "node:crypto";

import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";

import { beginProvisioningAttempt } from "../../../src/db/brands/beginProvisioningAttempt.ts";
import type { BrandRow } from "../../../src/db/brands/brandRow.ts";
import { cancelProvisioning } from "../../../src/db/brands/cancelProvisioning.ts";
import { clearSubWorkspacePointer } from "../../../src/db/brands/clearSubWorkspacePointer.ts";
import { failFreshBrandStart } from "../../../src/db/brands/failFreshBrandStart.ts";
import { failProvisioningAttempt } from "../../../src/db/brands/failProvisioningAttempt.ts";
import { findClaimedWorkspaces } from "../../../src/db/brands/findClaimedWorkspaces.ts";
import { markBrandPending } from "../../../src/db/brands/markBrandPending.ts";
import { promoteProvisioningReady } from "../../../src/db/brands/promoteProvisioningReady.ts";
import { recordProvisioningCandidate } from "../../../src/db/brands/recordProvisioningCandidate.ts";
import { recordProvisioningJobId } from "../../../src/db/brands/recordProvisioningJobId.ts";
import { recordSyncSubWorkspace } from "../../../src/db/brands/recordSyncSubWorkspace.ts";
import { insertOrg } from "../../../src/db/orgs/insertOrg.ts";
import { brands } from "../../../src/db/schema.ts";
import { insertTestBrand } from "../../support/brandRows.ts";
import { createTestDatabase, type TestDatabase } from "../../support/database.ts";

let t: TestDatabase;
let orgId: string;
const t0 = new Date("2026-02-01T00:00:00.000Z");
const at = (seconds: number) => new Date(t0.getTime() + seconds * 1000);

beforeAll(async () => {
  t = await createTestDatabase();
  orgId = (await insertOrg(t.db, { name: "Org", parentWorkspaceId: "parent-1", now: t0 })).id;
});
afterAll(() => t.destroy());

let brand: BrandRow;
beforeEach(async () => {
  brand = await insertTestBrand(t.db, {
    orgId,
    name: `Brand ${randomUUID()}`,
    domain: null,
    primaryUrl: null,
    now: t0,
  });
});

async function read(brandId = brand.id): Promise<BrandRow> {
  const [row] = await t.db.select().from(brands).where(eq(brands.id, brandId));
  return row!;
}

/** A brand with a live attempt that recorded `candidate`. */
async function pendingWithCandidate(candidate: string, brandId = brand.id): Promise<string> {
  const attemptId = randomUUID();
  expect(await beginProvisioningAttempt(t.db, { brandId, attemptId, now: at(1) })).toBeDefined();
  expect(
    await recordProvisioningCandidate(t.db, {
      brandId,
      attemptId,
      candidateWorkspaceId: candidate,
      now: at(2),
    }),
  ).toBeDefined();
  return attemptId;
}

describe("T1 begin", () => {
  it("starts from null, clearing nothing else, and stamps updatedAt from the caller's clock", async () => {
    const attemptId = randomUUID();
    const row = await beginProvisioningAttempt(t.db, { brandId: brand.id, attemptId, now: at(5) });
    expect(row).toMatchObject({
      provisioningStatus: "pending",
      provisioningAttemptId: attemptId,
      provisioningJobId: null,
      provisioningCandidateWorkspaceId: null,
      provisioningError: null,
    });
    expect(row!.updatedAt).toEqual(at(5));
  });

  it("loses while another attempt is pending (the second producer gets nothing)", async () => {
    const first = randomUUID();
    await beginProvisioningAttempt(t.db, { brandId: brand.id, attemptId: first, now: at(1) });
    expect(
      await beginProvisioningAttempt(t.db, { brandId: brand.id, attemptId: randomUUID(), now: at(2) }),
    ).toBe(undefined);
    expect((await read()).provisioningAttemptId).toBe(first);
  });

  it("restarts from failed and from ready, clearing the old job, candidate and error", async () => {
    const old = await pendingWithCandidate("ws-old");
    await recordProvisioningJobId(t.db, {
      brandId: brand.id,
      attemptId: old,
      jobId: randomUUID(),
      now: at(3),
    });
    await failProvisioningAttempt(t.db, {
      brandId: brand.id,
      attemptId: old,
      reason: "didNotSettle",
      now: at(4),
    });
    const next = randomUUID();
    const restarted = await beginProvisioningAttempt(t.db, {
      brandId: brand.id,
      attemptId: next,
      now: at(5),
    });
    expect(restarted).toMatchObject({
      provisioningStatus: "pending",
      provisioningAttemptId: next,
      provisioningJobId: null,
      provisioningCandidateWorkspaceId: null,
      provisioningError: null,
    });
    await recordProvisioningCandidate(t.db, {
      brandId: brand.id,
      attemptId: next,
      candidateWorkspaceId: "ws-r",
      now: at(6),
    });
    expect(
      (await promoteProvisioningReady(t.db, { brandId: brand.id, attemptId: next, now: at(7) })).outcome,
    ).toBe("promoted");
    expect(
      await beginProvisioningAttempt(t.db, { brandId: brand.id, attemptId: randomUUID(), now: at(8) }),
    ).toBeDefined();
  });

  it("lets exactly one of many concurrent producers win", async () => {
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        beginProvisioningAttempt(t.db, { brandId: brand.id, attemptId: randomUUID(), now: at(1) }),
      ),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
  });
});

describe("T2 record candidate", () => {
  it("records once; a duplicate delivery of the same attempt loses", async () => {
    const attemptId = randomUUID();
    await beginProvisioningAttempt(t.db, { brandId: brand.id, attemptId, now: at(1) });
    expect(
      await recordProvisioningCandidate(t.db, {
        brandId: brand.id,
        attemptId,
        candidateWorkspaceId: "ws-a",
        now: at(2),
      }),
    ).toMatchObject({ provisioningCandidateWorkspaceId: "ws-a" });
    expect(
      await recordProvisioningCandidate(t.db, {
        brandId: brand.id,
        attemptId,
        candidateWorkspaceId: "ws-b",
        now: at(3),
      }),
    ).toBe(undefined);
    expect((await read()).provisioningCandidateWorkspaceId).toBe("ws-a");
  });

  it("loses for a superseded attempt id and for a cancelled attempt", async () => {
    const attemptId = randomUUID();
    await beginProvisioningAttempt(t.db, { brandId: brand.id, attemptId, now: at(1) });
    expect(
      await recordProvisioningCandidate(t.db, {
        brandId: brand.id,
        attemptId: randomUUID(),
        candidateWorkspaceId: "ws-x",
        now: at(2),
      }),
    ).toBe(undefined);
    await cancelProvisioning(t.db, { brandId: brand.id, now: at(3) });
    expect(
      await recordProvisioningCandidate(t.db, {
        brandId: brand.id,
        attemptId,
        candidateWorkspaceId: "ws-x",
        now: at(4),
      }),
    ).toBe(undefined);
    expect((await read()).provisioningCandidateWorkspaceId).toBe(null);
  });
});

describe("T3 record job id", () => {
  it("records for the live attempt and refreshes updatedAt; a stale attempt id loses", async () => {
    const attemptId = randomUUID();
    const jobId = randomUUID();
    await beginProvisioningAttempt(t.db, { brandId: brand.id, attemptId, now: at(1) });
    const row = await recordProvisioningJobId(t.db, { brandId: brand.id, attemptId, jobId, now: at(9) });
    expect(row).toMatchObject({ provisioningJobId: jobId });
    expect(row!.updatedAt).toEqual(at(9));
    expect(
      await recordProvisioningJobId(t.db, {
        brandId: brand.id,
        attemptId: randomUUID(),
        jobId: randomUUID(),
        now: at(10),
      }),
    ).toBe(undefined);
    expect((await read()).provisioningJobId).toBe(jobId);
  });

  it("loses once the attempt is no longer pending", async () => {
    const attemptId = await pendingWithCandidate("ws-j");
    await promoteProvisioningReady(t.db, { brandId: brand.id, attemptId, now: at(3) });
    expect(
      await recordProvisioningJobId(t.db, { brandId: brand.id, attemptId, jobId: randomUUID(), now: at(4) }),
    ).toBe(undefined);
  });
});

describe("T4 promote", () => {
  it("moves the candidate to the canonical pointer and makes the brand active", async () => {
    const attemptId = await pendingWithCandidate("ws-p");
    const result = await promoteProvisioningReady(t.db, { brandId: brand.id, attemptId, now: at(3) });
    expect(result.outcome).toBe("promoted");
    expect(await read()).toMatchObject({
      subWorkspaceId: "ws-p",
      status: "active",
      provisioningStatus: "ready",
      provisioningError: null,
    });
  });

  it("a stale hop (older attempt id) loses and leaves the newer attempt untouched", async () => {
    const old = await pendingWithCandidate("ws-old");
    await failProvisioningAttempt(t.db, { brandId: brand.id, attemptId: old, reason: "stale", now: at(3) });
    const newer = await pendingWithCandidate("ws-new");
    expect(await promoteProvisioningReady(t.db, { brandId: brand.id, attemptId: old, now: at(4) })).toEqual({
      outcome: "lost",
    });
    expect(await read()).toMatchObject({
      subWorkspaceId: null,
      provisioningStatus: "pending",
      provisioningAttemptId: newer,
      provisioningCandidateWorkspaceId: "ws-new",
    });
  });

  it("loses after a cancel (deactivate won the race) and never resurrects the brand", async () => {
    const attemptId = await pendingWithCandidate("ws-c");
    await cancelProvisioning(t.db, { brandId: brand.id, now: at(3) });
    expect((await promoteProvisioningReady(t.db, { brandId: brand.id, attemptId, now: at(4) })).outcome).toBe(
      "lost",
    );
    expect(await read()).toMatchObject({
      subWorkspaceId: null,
      status: "pending",
      provisioningStatus: "failed",
    });
  });

  it("loses without a candidate and for a deleted brand", async () => {
    const attemptId = randomUUID();
    await beginProvisioningAttempt(t.db, { brandId: brand.id, attemptId, now: at(1) });
    expect((await promoteProvisioningReady(t.db, { brandId: brand.id, attemptId, now: at(2) })).outcome).toBe(
      "lost",
    );
    await recordProvisioningCandidate(t.db, {
      brandId: brand.id,
      attemptId,
      candidateWorkspaceId: "ws-d",
      now: at(3),
    });
    await t.db.update(brands).set({ status: "deleted" }).where(eq(brands.id, brand.id));
    expect((await promoteProvisioningReady(t.db, { brandId: brand.id, attemptId, now: at(4) })).outcome).toBe(
      "lost",
    );
    expect((await read()).subWorkspaceId).toBe(null);
  });

  it("answers superseded, not an exception, when another brand already points at the workspace", async () => {
    const other = await insertTestBrand(t.db, {
      orgId,
      name: "Other",
      domain: null,
      primaryUrl: null,
      now: t0,
    });
    const shared = `ws-shared-${randomUUID()}`;
    const otherAttempt = await pendingWithCandidate(shared, other.id);
    expect(
      (await promoteProvisioningReady(t.db, { brandId: other.id, attemptId: otherAttempt, now: at(3) }))
        .outcome,
    ).toBe("promoted");
    const attemptId = await pendingWithCandidate(shared);
    expect(await promoteProvisioningReady(t.db, { brandId: brand.id, attemptId, now: at(4) })).toEqual({
      outcome: "superseded",
    });
    expect(await read()).toMatchObject({ subWorkspaceId: null, provisioningStatus: "pending" });
  });

  it("a unique violation inside a caller's transaction does not poison it", async () => {
    const other = await insertTestBrand(t.db, {
      orgId,
      name: "Other2",
      domain: null,
      primaryUrl: null,
      now: t0,
    });
    const shared = `ws-shared-${randomUUID()}`;
    await promoteProvisioningReady(t.db, {
      brandId: other.id,
      attemptId: await pendingWithCandidate(shared, other.id),
      now: at(3),
    });
    const attemptId = await pendingWithCandidate(shared);
    const outcome = await t.db.transaction(async (tx) => {
      const result = await promoteProvisioningReady(tx, { brandId: brand.id, attemptId, now: at(4) });
      await failProvisioningAttempt(tx, { brandId: brand.id, attemptId, reason: "unexpected", now: at(5) });
      return result.outcome;
    });
    expect(outcome).toBe("superseded");
    expect((await read()).provisioningStatus).toBe("failed");
  });

  it("exactly one of two concurrent promotes of the same workspace wins", async () => {
    const other = await insertTestBrand(t.db, {
      orgId,
      name: "Racer",
      domain: null,
      primaryUrl: null,
      now: t0,
    });
    const shared = `ws-race-${randomUUID()}`;
    const a = await pendingWithCandidate(shared);
    const b = await pendingWithCandidate(shared, other.id);
    const outcomes = await Promise.all([
      promoteProvisioningReady(t.db, { brandId: brand.id, attemptId: a, now: at(5) }),
      promoteProvisioningReady(t.db, { brandId: other.id, attemptId: b, now: at(5) }),
    ]);
    expect(outcomes.map((o) => o.outcome).sort()).toEqual(["promoted", "superseded"]);
  });
});

describe("T5 fail", () => {
  it("fails the live attempt with the fixed sentence", async () => {
    const attemptId = randomUUID();
    await beginProvisioningAttempt(t.db, { brandId: brand.id, attemptId, now: at(1) });
    expect(
      await failProvisioningAttempt(t.db, {
        brandId: brand.id,
        attemptId,
        reason: "upstreamFailed",
        now: at(2),
      }),
    ).toMatchObject({
      provisioningStatus: "failed",
      provisioningError: "Workspace creation failed upstream",
    });
  });

  it("a stale caller cannot fail a newer attempt, nor a promoted one", async () => {
    const old = randomUUID();
    await beginProvisioningAttempt(t.db, { brandId: brand.id, attemptId: old, now: at(1) });
    await failProvisioningAttempt(t.db, { brandId: brand.id, attemptId: old, reason: "stale", now: at(2) });
    const newer = await pendingWithCandidate("ws-f");
    expect(
      await failProvisioningAttempt(t.db, {
        brandId: brand.id,
        attemptId: old,
        reason: "unexpected",
        now: at(3),
      }),
    ).toBe(undefined);
    expect((await read()).provisioningStatus).toBe("pending");
    await promoteProvisioningReady(t.db, { brandId: brand.id, attemptId: newer, now: at(4) });
    expect(
      await failProvisioningAttempt(t.db, {
        brandId: brand.id,
        attemptId: newer,
        reason: "unexpected",
        now: at(5),
      }),
    ).toBe(undefined);
    expect(await read()).toMatchObject({ provisioningStatus: "ready", subWorkspaceId: "ws-f" });
  });
});

describe("T6 cancel", () => {
  it("cancels whatever attempt is pending, and is a no-op otherwise", async () => {
    expect(await cancelProvisioning(t.db, { brandId: brand.id, now: at(1) })).toBe(undefined);
    await beginProvisioningAttempt(t.db, { brandId: brand.id, attemptId: randomUUID(), now: at(2) });
    expect(await cancelProvisioning(t.db, { brandId: brand.id, now: at(3) })).toMatchObject({
      provisioningStatus: "failed",
      provisioningError: "Deactivated while provisioning",
    });
    expect(await cancelProvisioning(t.db, { brandId: brand.id, now: at(4) })).toBe(undefined);
  });

  it("loses to a promote that committed first (the caller must re-read the pointer)", async () => {
    const attemptId = await pendingWithCandidate("ws-first");
    await promoteProvisioningReady(t.db, { brandId: brand.id, attemptId, now: at(3) });
    expect(await cancelProvisioning(t.db, { brandId: brand.id, now: at(4) })).toBe(undefined);
    expect((await read()).subWorkspaceId).toBe("ws-first");
  });
});

describe("T7 fresh-brand start failure", () => {
  it("marks the brand failed by id alone with the fixed sentence", async () => {
    expect(await failFreshBrandStart(t.db, { brandId: brand.id, now: at(1) })).toMatchObject({
      provisioningStatus: "failed",
      provisioningError: "Could not start provisioning",
    });
    expect(await failFreshBrandStart(t.db, { brandId: randomUUID(), now: at(1) })).toBe(undefined);
  });
});

describe("synchronous pointer write", () => {
  it("records the pointer on a brand without async history and marks its provisioning ready", async () => {
    const result = await recordSyncSubWorkspace(t.db, {
      brandId: brand.id,
      subWorkspaceId: "ws-sync",
      now: at(1),
    });
    expect(result.outcome).toBe("recorded");
    expect(await read()).toMatchObject({
      subWorkspaceId: "ws-sync",
      status: "active",
      provisioningStatus: "ready",
    });
  });

  it("loses while an async attempt is pending: never overwrites it", async () => {
    const attemptId = await pendingWithCandidate("ws-async");
    expect(
      await recordSyncSubWorkspace(t.db, { brandId: brand.id, subWorkspaceId: "ws-sync2", now: at(3) }),
    ).toEqual({
      outcome: "lost",
    });
    expect(await read()).toMatchObject({ subWorkspaceId: null, provisioningAttemptId: attemptId });
  });

  it("completes a brand whose async attempt failed as ready, without the old error", async () => {
    const attemptId = await pendingWithCandidate("ws-failed");
    await failProvisioningAttempt(t.db, { brandId: brand.id, attemptId, reason: "didNotSettle", now: at(3) });
    await recordSyncSubWorkspace(t.db, { brandId: brand.id, subWorkspaceId: "ws-sync3", now: at(4) });
    expect(await read()).toMatchObject({
      subWorkspaceId: "ws-sync3",
      provisioningStatus: "ready",
      provisioningError: null,
    });
  });

  it("loses when the brand points elsewhere already; reports a workspace claimed by another brand", async () => {
    await recordSyncSubWorkspace(t.db, { brandId: brand.id, subWorkspaceId: "ws-mine", now: at(1) });
    expect(
      (await recordSyncSubWorkspace(t.db, { brandId: brand.id, subWorkspaceId: "ws-else", now: at(2) }))
        .outcome,
    ).toBe("lost");
    expect(
      (await recordSyncSubWorkspace(t.db, { brandId: brand.id, subWorkspaceId: "ws-mine", now: at(2) }))
        .outcome,
    ).toBe("recorded");
    const other = await insertTestBrand(t.db, {
      orgId,
      name: "Thief",
      domain: null,
      primaryUrl: null,
      now: t0,
    });
    expect(
      await recordSyncSubWorkspace(t.db, { brandId: other.id, subWorkspaceId: "ws-mine", now: at(3) }),
    ).toEqual({
      outcome: "claimedByAnotherBrand",
    });
  });
});

describe("deactivate helpers and claims", () => {
  it("clears the pointer only when it still holds the value read", async () => {
    await recordSyncSubWorkspace(t.db, { brandId: brand.id, subWorkspaceId: "ws-clear", now: at(1) });
    expect(
      await clearSubWorkspacePointer(t.db, { brandId: brand.id, subWorkspaceId: "ws-other", now: at(2) }),
    ).toBe(undefined);
    expect(
      await clearSubWorkspacePointer(t.db, { brandId: brand.id, subWorkspaceId: "ws-clear", now: at(3) }),
    ).toMatchObject({
      subWorkspaceId: null,
    });
    expect(await markBrandPending(t.db, { brandId: brand.id, now: at(4) })).toMatchObject({
      status: "pending",
    });
  });

  it("reports pointers and live candidates of other brands as claimed, not failed candidates or our own", async () => {
    const a = await insertTestBrand(t.db, { orgId, name: "A", domain: null, primaryUrl: null, now: t0 });
    const b = await insertTestBrand(t.db, { orgId, name: "B", domain: null, primaryUrl: null, now: t0 });
    const c = await insertTestBrand(t.db, { orgId, name: "C", domain: null, primaryUrl: null, now: t0 });
    const [pointer, live, dead, mine] = ["p", "l", "d", "m"].map((s) => `ws-claim-${s}-${randomUUID()}`) as [
      string,
      string,
      string,
      string,
    ];
    await recordSyncSubWorkspace(t.db, { brandId: a.id, subWorkspaceId: pointer, now: at(1) });
    await pendingWithCandidate(live, b.id);
    const deadAttempt = await pendingWithCandidate(dead, c.id);
    await failProvisioningAttempt(t.db, {
      brandId: c.id,
      attemptId: deadAttempt,
      reason: "unexpected",
      now: at(3),
    });
    await recordSyncSubWorkspace(t.db, { brandId: brand.id, subWorkspaceId: mine, now: at(1) });
    const claimed = await findClaimedWorkspaces(t.db, {
      workspaceIds: [pointer, live, dead, mine, "ws-unknown"],
      exceptBrandId: brand.id,
    });
    expect([...claimed].sort()).toEqual([live, pointer].sort());
    // exceptBrandId null (a cleanup's view): the asking brand's own pointer counts too.
    const claimedByAnyone = await findClaimedWorkspaces(t.db, {
      workspaceIds: [pointer, live, dead, mine, "ws-unknown"],
      exceptBrandId: null,
    });
    expect([...claimedByAnyone].sort()).toEqual([live, mine, pointer].sort());
  });
});
