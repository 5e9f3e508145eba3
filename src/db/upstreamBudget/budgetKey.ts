/** Which budget a statement works on: an account (keyed hash of its bearer) and an endpoint group. */
export interface BudgetKey {
  accountKey: string;
  group: string;
}

export type { DatabaseTime } from "../databaseTime.ts";
