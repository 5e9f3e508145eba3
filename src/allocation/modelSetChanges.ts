import { beginAnnouncement } from "../db/resourceObservations/beginAnnouncement.ts";
import { endAnnouncement } from "../db/resourceObservations/endAnnouncement.ts";
import type { AllocationDeps } from "./allocationDeps.ts";
import type { Announcement } from "./announced.ts";
import { countOwnAnnouncement, type GuardedSection } from "./guardedSection.ts";

/**
 * A section works its need out before it holds the sub-workspace's lock (ADR 0013: those reads
 * overlap the lock wait), and the need of a prompt write multiplies by the project's model count.
 * A model added to the project meanwhile — by a section that held the lock first — makes the
 * writes stage more than the need said, and a publish bound built from that need would count
 * less than the publish moved (docs/decisions/0030, addendum). Model adds are announced
 * (announced.ts), each moving the sub-workspace entry's version; the statement that takes a
 * section's lease answers it (its first attempt, before the need's reads start), and a section that sees one between then and its
 * publish records that publish without a basis (the conservative rule for one window).
 * The section that adds the model counts each change it writes (the begin, the end) as its own.
 */
export function modelAdd(
  deps: Pick<AllocationDeps, "db">,
  orgId: string,
  subWorkspaceId: string,
  section: GuardedSection,
): Announcement {
  const on = { orgId, workspaceId: subWorkspaceId };
  return {
    what: "a model add",
    fields: { subWorkspaceId },
    begin: async (hold) => {
      await beginAnnouncement(deps.db, on, hold);
      countOwnAnnouncement(section);
    },
    end: async () => {
      await endAnnouncement(deps.db, on);
      countOwnAnnouncement(section);
    },
  };
}
