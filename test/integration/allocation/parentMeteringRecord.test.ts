import { randomUUID } from "node:crypto";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { findOrgById } from "../../../src/db/orgs/findOrgById.ts";
import { listOrgObservations } from "../../../src/db/resourceObservations/listOrgObservations.ts";
import { holdsResources } from "../../../src/db/resourceObservations/observationRow.ts";
import { recordParentMetering } from "../../../src/db/resourceObservations/recordParentMetering.ts";
import { recordResourcesRead } from "../../../src/db/resourceObservations/recordResourcesRead.ts";
import { recordTransferAnswer } from "../../../src/db/resourceObservations/recordTransferAnswer.ts";
import { orgs } from "../../../src/db/schema.ts";
import { createTestDatabase, type TestDatabase } from "../../support/database.ts";

/**
 * The parent's metering on its entry of the resources record (spec/allocation.md §13, ADR 0034):
 * one guarded upsert that never lets an older read win and answers the value it replaced; an entry
 * holding only the metering until the first resources read, which keeps it; the org's load reads
 * it in the same statement.
 */
let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.destroy();
});

const at = (seconds: number) => new Date(Date.parse("2026-07-01T08:00:00.000Z") + seconds * 1000);
const usage = (total: number) => ({ used: 0, drafted: 0, total });

async function newOrg(): Promise<{ orgId: string; parent: string }> {
  const orgId = randomUUID();
  const parent = `parent-${orgId}`;
  await db.db
    .insert(orgs)
    .values({ id: orgId, name: "o", parentWorkspaceId: parent, createdAt: at(0), updatedAt: at(0) });
  return { orgId, parent };
}

describe("recordParentMetering", () => {
  it("keeps the metering of a parent never read in an entry of its own, which a resources read fills and keeps", async () => {
    const { orgId, parent } = await newOrg();
    expect((await findOrgById(db.db, orgId))?.metering).toEqual({ state: "unknown", asOf: null });

    const first = await recordParentMetering(db.db, {
      orgId,
      parentWorkspaceId: parent,
      metering: "unmetered",
      asOf: at(10),
    });
    expect(first).toEqual({ outcome: "recorded", previous: "unknown" });
    expect((await findOrgById(db.db, orgId))?.metering).toEqual({ state: "unmetered", asOf: at(10) });
    const [entry] = await listOrgObservations(db.db, orgId);
    expect(holdsResources(entry!)).toBe(false);

    // A transfer's answer corrects a parent's totals only when they were read.
    await recordTransferAnswer(db.db, {
      orgId,
      subWorkspaceId: `sub-${orgId}`,
      planned: { projects: usage(0), prompts: usage(0) },
      targets: { projects: 1 },
      observedAt: at(11),
    });
    const afterTransfer = (await listOrgObservations(db.db, orgId)).find((e) => e.workspaceId === parent)!;
    expect(afterTransfer.resources.projects.total).toBe(0);

    await recordResourcesRead(db.db, {
      orgId,
      workspaceId: parent,
      resources: { projects: usage(2), prompts: usage(100) },
      observedAt: at(12),
      readAgeMs: 0,
      publishLagMs: 30_000,
      now: at(12),
    });
    const read = (await listOrgObservations(db.db, orgId)).find((e) => e.workspaceId === parent)!;
    expect(holdsResources(read)).toBe(true);
    expect(read.resources.projects.total).toBe(2);
    expect(read.metering).toEqual({ state: "unmetered", asOf: at(10) });
  });

  it("never lets an older read win, and answers what it replaced (a flip)", async () => {
    const { orgId, parent } = await newOrg();
    const record = (metering: "metered" | "unmetered", seconds: number) =>
      recordParentMetering(db.db, { orgId, parentWorkspaceId: parent, metering, asOf: at(seconds) });
    expect(await record("metered", 20)).toEqual({ outcome: "recorded", previous: "unknown" });
    expect(await record("unmetered", 15)).toEqual({ outcome: "older" });
    expect((await findOrgById(db.db, orgId))?.metering).toEqual({ state: "metered", asOf: at(20) });
    expect(await record("unmetered", 30)).toEqual({ outcome: "recorded", previous: "metered" });
    expect(await record("unmetered", 40)).toEqual({ outcome: "recorded", previous: "unmetered" });
    expect((await findOrgById(db.db, orgId))?.metering).toEqual({ state: "unmetered", asOf: at(40) });
  });

  it("is the parent's: another workspace's entry, or the old parent's after a change, is not the org's", async () => {
    const { orgId, parent } = await newOrg();
    await recordParentMetering(db.db, {
      orgId,
      parentWorkspaceId: `other-${orgId}`,
      metering: "unmetered",
      asOf: at(1),
    });
    expect((await findOrgById(db.db, orgId))?.metering.state).toBe("unknown");
    await recordParentMetering(db.db, { orgId, parentWorkspaceId: parent, metering: "metered", asOf: at(2) });
    expect((await findOrgById(db.db, orgId))?.metering.state).toBe("metered");
  });
});
