import type { allocationLedger } from "../schema.ts";

export type LedgerEntryRow = typeof allocationLedger.$inferSelect;
export type LedgerReason = LedgerEntryRow["reason"];
