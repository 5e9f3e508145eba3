import { and, eq, inArray, ne, or } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { brands } from "../schema.ts";

/**
 * Which of `workspaceIds` a brand claims: as its canonical pointer, or as the candidate of its live
 * (`pending`) attempt. A failed attempt's candidate is not a claim: a workspace left behind that
 * way is exactly what "stays adoptable by title" means.
 *
 * `exceptBrandId` names the asking brand, whose own claims do not count (adoption: a brand may
 * take back its own workspace). `null` counts every brand's claims, the asker's included: the
 * cleanup of a cancelled attempt must not empty a workspace a newer attempt of the SAME brand
 * adopted or promoted since.
 */
export async function findClaimedWorkspaces(
  db: DbExecutor,
  input: { workspaceIds: readonly string[]; exceptBrandId: string | null },
): Promise<Set<string>> {
  if (input.workspaceIds.length === 0) return new Set();
  const ids = [...input.workspaceIds];
  const rows = await db
    .select({
      pointer: brands.subWorkspaceId,
      candidate: brands.provisioningCandidateWorkspaceId,
      provisioningStatus: brands.provisioningStatus,
    })
    .from(brands)
    .where(
      and(
        input.exceptBrandId === null ? undefined : ne(brands.id, input.exceptBrandId),
        or(
          inArray(brands.subWorkspaceId, ids),
          and(
            eq(brands.provisioningStatus, "pending"),
            inArray(brands.provisioningCandidateWorkspaceId, ids),
          ),
        ),
      ),
    );
  const wanted = new Set(ids);
  const claimed = new Set<string>();
  for (const row of rows) {
    if (row.pointer && wanted.has(row.pointer)) claimed.add(row.pointer);
    if (row.provisioningStatus === "pending" && row.candidate && wanted.has(row.candidate)) {
      claimed.add(row.candidate);
    }
  }
  return claimed;
}
