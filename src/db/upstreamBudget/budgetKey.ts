/** Which budget a statement works on: an account (keyed hash of its bearer) and an endpoint group. */
export interface BudgetKey {
  accountKey: string;
  group: string;
}

/**
 * The time the statement compares with: the database's clock (`clock_timestamp()`) in production,
 * so no two processes' clocks are ever compared; a test passes its injected clock's time instead.
 */
export type DatabaseTime = Date | undefined;
