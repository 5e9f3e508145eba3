import type { DbExecutor } from "../database.ts";
import { allocationLedger } from "../schema.ts";
import type { LedgerEntryRow, LedgerReason } from "./ledgerEntryRow.ts";

/** Appends one transfer attempt to the allocation ledger (spec/allocation.md §7). */
export async function insertLedgerEntry(
  db: DbExecutor,
  values: {
    orgId: string;
    brandId: string | null;
    subWorkspaceId: string;
    reason: LedgerReason;
    before: { projects: number; prompts: number } | null;
    after: { projects: number; prompts: number } | null;
    outcome: string;
    errorCode: string | null;
    requestId: string | null;
    now: Date;
  },
): Promise<LedgerEntryRow> {
  const { now, ...fields } = values;
  const [row] = await db
    .insert(allocationLedger)
    .values({ ...fields, createdAt: now })
    .returning();
  return row!;
}
