import { randomUUID } from "node:crypto";

import { listOrgs } from "../db/orgs/listOrgs.ts";
import { forgetOrphanSighting } from "../db/upstreamReconcile/forgetOrphanSighting.ts";
import { listQuarantinedOrphans } from "../db/upstreamReconcile/listQuarantinedOrphans.ts";
import { readUpstreamClaims } from "../db/upstreamReconcile/readUpstreamClaims.ts";
import { ServiceError } from "../domain/errors.ts";
import { asBackgroundWork } from "../gateway/upstreamScope.ts";
import {
  deleteQuarantinedThing,
  type OrgReconcileReport,
  underBrandLease,
  type UpstreamReconcilerDeps,
} from "./upstreamReclaim.ts";

export interface QuarantineDeletion {
  orgId: string;
  kind: "subWorkspace" | "project";
  upstreamId: string;
  workspaceId: string;
}

/**
 * `serenity reconcile --delete <id>`: the only way a quarantined orphan (one that holds prompts the
 * reconciler could not re-attach, ADR 0016) is deleted — an operator names it. Only a thing in
 * quarantine is accepted (anything else is `notFound`), it is deleted under its brand's lease like
 * the reconciler's own deletions (a project, or a sub-workspace with every project in it, then
 * released), with ledger rows `reconcile`, and its sighting is forgotten.
 */
export function deleteQuarantined(
  deps: UpstreamReconcilerDeps,
  input: { bearer: string; upstreamId: string },
): Promise<QuarantineDeletion> {
  return asBackgroundWork(async () => {
    const [sighting] = await listQuarantinedOrphans(deps.db, { upstreamId: input.upstreamId });
    if (!sighting) {
      throw new ServiceError("notFound", {
        message: "No quarantined orphan has this id (see serenity audit).",
      });
    }
    const [org] = await listOrgs(deps.db, [sighting.orgId]);
    if (!org?.parentWorkspaceId)
      throw new ServiceError("notFound", { message: "The orphan's org has no pool." });
    const runId = `reconcile-delete:${randomUUID()}`;
    const context = {
      org: { id: org.id, parentWorkspaceId: org.parentWorkspaceId },
      bearer: input.bearer,
      runId,
      log: deps.logger.child({ orgId: org.id, runId }),
      report: emptyReport(org.id),
    };
    const claims = await readUpstreamClaims(deps.db, org.id);
    const owner =
      sighting.kind === "project"
        ? (claims.brands.find(
            (brand) => brand.status !== "deleted" && brand.subWorkspaceId === sighting.workspaceId,
          )?.id ?? null)
        : null;
    const done = await underBrandLease(deps, context, owner, sighting.upstreamId, () =>
      deleteQuarantinedThing(deps, context, owner, sighting),
    );
    if (done === "busy") throw new ServiceError("brandBusy");
    await forgetOrphanSighting(deps.db, {
      orgId: org.id,
      kind: sighting.kind,
      upstreamId: sighting.upstreamId,
    });
    context.log.warn(
      { kind: sighting.kind, upstreamId: sighting.upstreamId, workspaceId: sighting.workspaceId },
      "deleted a quarantined orphan on an operator's command",
    );
    return {
      orgId: org.id,
      kind: sighting.kind,
      upstreamId: sighting.upstreamId,
      workspaceId: sighting.workspaceId,
    };
  });
}

function emptyReport(orgId: string): OrgReconcileReport {
  return {
    orgId,
    orphans: { subWorkspaces: 0, projects: 0 },
    waiting: 0,
    reclaimed: { subWorkspaces: 0, projects: 0 },
    reattached: 0,
    quarantined: 0,
    rollbacksRetried: 0,
    reservationsDropped: 0,
    identityRepaired: 0,
    spared: 0,
    busy: 0,
    failed: 0,
    returned: { projects: 0, prompts: 0 },
  };
}
