import type { Db } from "../db/database.ts";
import { markOrgActive, ORG_ACTIVITY_RESOLUTION_MS } from "../db/orgs/markOrgActive.ts";
import { type Clock, monotonicMsOf } from "../domain/clock.ts";
import type { Logger } from "../observability/logger.ts";

/** Past this many orgs remembered, the ones marked longer than a resolution ago are forgotten. */
const REMEMBERED_ORGS = 10_000;

/**
 * Marks an org used (docs/decisions/0042): the org service calls it on every org-scoped access (a
 * view or a write), and a process writes at most one statement per org per
 * ORG_ACTIVITY_RESOLUTION_MS — the rest are answered from memory, so the mark is never a statement
 * per request. The statement is guarded too (markOrgActive), so N processes write at most N per
 * minute per org, of which one changes the row. A mark that fails is logged and never fails the
 * request: at worst the org's background passes slow down an hour later than they should.
 */
export class OrgActivityMarks {
  readonly #lastMarkMs = new Map<string, number>();

  constructor(private readonly deps: { db: Db; clock: Clock; logger: Logger }) {}

  async mark(orgId: string): Promise<void> {
    const nowMs = monotonicMsOf(this.deps.clock);
    const last = this.#lastMarkMs.get(orgId);
    if (last !== undefined && nowMs - last < ORG_ACTIVITY_RESOLUTION_MS) return;
    this.#remember(orgId, nowMs);
    try {
      await markOrgActive(this.deps.db, { orgId, now: this.deps.clock.databaseTime?.() });
    } catch (error) {
      this.#lastMarkMs.delete(orgId);
      this.deps.logger.warn({ err: error, orgId }, "could not mark the org active");
    }
  }

  #remember(orgId: string, nowMs: number): void {
    if (this.#lastMarkMs.size >= REMEMBERED_ORGS) {
      for (const [id, at] of this.#lastMarkMs) {
        if (nowMs - at >= ORG_ACTIVITY_RESOLUTION_MS) this.#lastMarkMs.delete(id);
      }
    }
    this.#lastMarkMs.set(orgId, nowMs);
  }
}
