import type { DbExecutor } from "../db/database.ts";
import { purgeIdleBudgetAccounts } from "../db/upstreamBudget/purgeIdleBudgetAccounts.ts";

export const IDLE_BUDGET_ACCOUNTS_STEP = "budget.idleAccounts";

/** Accounts unseen this long have their budget rows purged (issue 39, item 7). */
export const BUDGET_ACCOUNT_IDLE_MS = 24 * 60 * 60_000;

/**
 * The job reconciler's housekeeping of the upstream budget: every account seen is a few rows per
 * endpoint group, and tokens of opaque accounts come and go, so accounts unseen for a day are
 * forgotten. Database only, judged on the reconciler's database time.
 */
export function idleBudgetAccountsStep(): {
  name: string;
  step: (context: { db: DbExecutor; now: Date }) => Promise<Record<string, number>>;
} {
  return {
    name: IDLE_BUDGET_ACCOUNTS_STEP,
    async step({ db, now }) {
      return purgeIdleBudgetAccounts(db, { before: new Date(now.getTime() - BUDGET_ACCOUNT_IDLE_MS), now });
    },
  };
}
