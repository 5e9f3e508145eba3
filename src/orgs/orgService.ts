import { canAccessOrg, type Principal } from "../auth/principal.ts";
import type { Db } from "../db/database.ts";
import { findOrgById } from "../db/orgs/findOrgById.ts";
import { findOrgByParentWorkspace } from "../db/orgs/findOrgByParentWorkspace.ts";
import { insertOrg } from "../db/orgs/insertOrg.ts";
import { listOrgs } from "../db/orgs/listOrgs.ts";
import type { OrgRow, OrgWithMetering } from "../db/orgs/orgRow.ts";
import { isParentWorkspaceUniqueViolation } from "../db/orgs/parentWorkspaceUniqueViolation.ts";
import { updateOrg } from "../db/orgs/updateOrg.ts";
import type { Clock } from "../domain/clock.ts";
import { ServiceError } from "../domain/errors.ts";
import type { OrgActivityMarks } from "./orgActivityMarks.ts";

export type Org = OrgRow;

/**
 * Learns an org's parent metering (spec/allocation.md §13) when the org gets a parent: allocation
 * implements it (src/allocation/parentMetering.ts). Never throws: a read that fails leaves the
 * metering unknown, to be read again later.
 */
export interface ParentMeteringPort {
  learn(
    org: Pick<OrgRow, "id" | "parentWorkspaceId">,
    bearer: string,
    reason: "orgCreated" | "parentChanged",
  ): Promise<void>;
}

export interface OrgServiceDeps {
  db: Db;
  clock: Clock;
  /** Absent: no metering is read when an org is created or its parent changes (tests of orgs alone). */
  parentMetering?: ParentMeteringPort;
  /**
   * Where an access marks the org used (its background passes' pace, docs/decisions/0042). Absent:
   * nothing is marked (tests of orgs alone).
   */
  activity?: Pick<OrgActivityMarks, "mark">;
}

/** Orgs (tenants). Tenancy: an org the caller may not access is indistinguishable from a missing one. */
export class OrgService {
  constructor(private readonly deps: OrgServiceDeps) {}

  async create(
    principal: Principal,
    input: { name: string; parentWorkspaceId?: string | null },
  ): Promise<Org> {
    requireAdmin(principal);
    const org = await insertOrg(this.deps.db, {
      name: input.name,
      parentWorkspaceId: input.parentWorkspaceId ?? null,
      now: this.deps.clock.now(),
    }).catch(rethrowParentInUse);
    if (org.parentWorkspaceId) await this.deps.parentMetering?.learn(org, principal.bearer, "orgCreated");
    return org;
  }

  /**
   * The org whose pool is `parentWorkspaceId`, created with `name` when none exists yet. A system
   * operation (no caller): `serenity start` uses it for the demo org of the built-in simulator.
   */
  async ensureForParentWorkspace(name: string, parentWorkspaceId: string): Promise<Org> {
    const existing = await findOrgByParentWorkspace(this.deps.db, parentWorkspaceId);
    if (existing) return existing;
    try {
      return await insertOrg(this.deps.db, { name, parentWorkspaceId, now: this.deps.clock.now() });
    } catch (error) {
      // Another process starting at the same moment created it first: that one is the org.
      if (!isParentWorkspaceUniqueViolation(error)) throw error;
      const winner = await findOrgByParentWorkspace(this.deps.db, parentWorkspaceId);
      if (!winner) throw error;
      return winner;
    }
  }

  async list(principal: Principal): Promise<Org[]> {
    return listOrgs(this.deps.db, principal.isAdmin ? undefined : principal.orgIds);
  }

  /**
   * The org if it exists and the caller may access it; else `notFound` (no existence oracle). With
   * its parent's metering, read in the same statement (spec/allocation.md §13). Every org-scoped
   * operation passes here, so this is where the org is marked used (at most a statement a minute).
   */
  async getAccessible(principal: Principal, orgId: string): Promise<OrgWithMetering> {
    if (!canAccessOrg(principal, orgId)) throw new ServiceError("notFound");
    const org = await findOrgById(this.deps.db, orgId);
    if (!org) throw new ServiceError("notFound");
    await this.deps.activity?.mark(org.id);
    return org;
  }

  async update(
    principal: Principal,
    orgId: string,
    changes: { name?: string; parentWorkspaceId?: string | null },
  ): Promise<Org> {
    // Existence is checked before the role, so a non-admin learns nothing about foreign ids.
    const before = await this.getAccessible(principal, orgId);
    requireAdmin(principal);
    const updated = await updateOrg(this.deps.db, orgId, { ...changes, now: this.deps.clock.now() }).catch(
      rethrowParentInUse,
    );
    if (!updated) throw new ServiceError("notFound");
    // A new pool: its metering is its own (the old parent's is not carried over; until read, unknown).
    if (updated.parentWorkspaceId && updated.parentWorkspaceId !== before.parentWorkspaceId) {
      await this.deps.parentMetering?.learn(updated, principal.bearer, "parentChanged");
    }
    return updated;
  }
}

/** Two orgs on one pool would each see the other's usage as theirs (docs/decisions/0009). */
function rethrowParentInUse(error: unknown): never {
  if (isParentWorkspaceUniqueViolation(error))
    throw new ServiceError("parentWorkspaceInUse", { cause: error });
  throw error;
}

function requireAdmin(principal: Principal): void {
  if (!principal.isAdmin) throw new ServiceError("forbidden");
}
