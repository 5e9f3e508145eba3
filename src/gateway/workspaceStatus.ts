/**
 * Sub-workspace status predicates (spec/gateway.md §4). Live spells statuses inconsistently
 * (`creation failed` and `creation_failed`, stray case and spaces), so everything is normalised first.
 */

const READY_STATUSES = new Set(["created", "active"]);
const TERMINAL_STATUSES = new Set(["error", "creation failed", "creation_failed", "invalid subscription"]);

export function normaliseStatus(status: string): string {
  return status.trim().toLowerCase();
}

/** `created` (or `active`): the sub-workspace can take writes (a transfer may still 422 briefly). */
export function isReadyStatus(status: string): boolean {
  return READY_STATUSES.has(normaliseStatus(status));
}

/** A failure the workspace never recovers from; anything else not ready (`not ready`, `deleting`…) may still settle. */
export function isTerminalStatus(status: string): boolean {
  return TERMINAL_STATUSES.has(normaliseStatus(status));
}
