import { and, desc, eq, lt, type SQL } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { allocationLedger } from "../schema.ts";
import type { LedgerEntryRow } from "./ledgerEntryRow.ts";

/**
 * An org's ledger, newest first, paged by id (`before` = the smallest id of the previous page), so
 * pages stay stable while new rows are appended.
 */
export async function listLedgerEntries(
  db: DbExecutor,
  orgId: string,
  options: { brandId?: string; limit: number; before?: number },
): Promise<LedgerEntryRow[]> {
  const conditions: SQL[] = [eq(allocationLedger.orgId, orgId)];
  if (options.brandId !== undefined) conditions.push(eq(allocationLedger.brandId, options.brandId));
  if (options.before !== undefined) conditions.push(lt(allocationLedger.id, options.before));
  return db
    .select()
    .from(allocationLedger)
    .where(and(...conditions))
    .orderBy(desc(allocationLedger.id))
    .limit(options.limit);
}
