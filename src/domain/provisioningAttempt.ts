/**
 * Pure rules of a brand's provisioning attempt (spec/provisioning.md §3–§4): its transitions, the
 * concurrency guard's verdict and the fixed sentences a failed attempt may carry. No I/O here.
 */

export type ProvisioningStatus = "pending" | "ready" | "failed";

/**
 * The attempt's state machine (spec/provisioning.md §4). Each transition is ONE guarded UPDATE in
 * `src/db/brands/`, named here; zero rows means the compare-and-set was lost and the caller stands
 * down (never an exception). Comments elsewhere say "T4" and mean the row below.
 */
export const ATTEMPT_TRANSITIONS = {
  T1: {
    name: "begin: null/ready/failed → pending, with a new attempt id",
    modules: ["beginProvisioningAttempt"],
    by: "the producers (lost → 409 semrushProvisioningInProgress)",
  },
  T2: {
    name: "record the candidate workspace",
    modules: ["recordProvisioningCandidate"],
    by: "the provisioning job, after create-or-adopt",
  },
  T3: {
    name: "record the job carrying the attempt",
    modules: ["recordProvisioningJobId"],
    by: "the producers after the enqueue; the provisioning job after a requeue (best effort)",
  },
  T4: {
    name: "promote: pending → ready, the candidate becomes the brand's sub-workspace",
    modules: ["promoteProvisioningReady"],
    by: "the provisioning job",
  },
  T5: {
    name: "fail: pending → failed, with a fixed sentence",
    modules: ["failProvisioningAttempt", "failStaleProvisioningAttempt"],
    by: "the provisioning job; a producer whose enqueue failed; the reconciler (its stale variant)",
  },
  T6: {
    name: "cancel: any pending attempt → failed, deactivated while provisioning",
    modules: ["cancelProvisioning"],
    by: "deactivate",
  },
  T7: {
    name: "fail a brand this very request inserted, guarded by its id alone",
    modules: ["failFreshBrandStart"],
    by: "create brand, when starting the attempt threw for the row it just inserted",
  },
} as const;

export type AttemptTransition = keyof typeof ATTEMPT_TRANSITIONS;

/** Ten minutes: an attempt untouched for longer is presumed dead (its worker crashed or was lost). */
export const DEFAULT_PROVISIONING_STALE_MS = 10 * 60_000;

/** How long an asynchronous attempt waits for its workspace to settle. */
export const DEFAULT_PROVISION_SETTLE_BUDGET_MS = 10 * 60_000;

/**
 * The only sentences `provisioning_error` may hold. Transitions take a reason key, never free
 * text, so an upstream body or a raw exception message can never reach the column or a response.
 */
export const PROVISIONING_ERROR_SENTENCES = {
  upstreamFailed: "Workspace creation failed upstream",
  didNotSettle: "Workspace did not settle in time",
  stale: "Provisioning went stale",
  deactivated: "Deactivated while provisioning",
  unexpected: "Unexpected error while provisioning",
  couldNotStart: "Could not start provisioning",
  claimedElsewhere: "Workspace is already used by another brand",
  /** On a ready brand: its workspace is fine, the markets its request asked for are not all there. */
  marketsNotCreated: "Workspace is ready, but a requested market could not be created",
} as const;

export type ProvisioningFailureReason = keyof typeof PROVISIONING_ERROR_SENTENCES;

export function provisioningErrorSentence(reason: ProvisioningFailureReason): string {
  return PROVISIONING_ERROR_SENTENCES[reason];
}

export function isProvisioningErrorSentence(value: string): boolean {
  return (Object.values(PROVISIONING_ERROR_SENTENCES) as string[]).includes(value);
}

/**
 * - `proceed`: no attempt, or the last one finished (ready or failed): a new path may start.
 * - `inProgress`: a live attempt owns the brand → 409 `semrushProvisioningInProgress`.
 * - `stale`: an attempt is `pending` but untouched past the threshold → fail it (T5 "went stale"), then proceed.
 */
export type ConcurrencyVerdict = "proceed" | "inProgress" | "stale";

export interface AttemptSnapshot {
  provisioningStatus: ProvisioningStatus | null;
  /** The brand's `updatedAt`: every attempt transition refreshes it, so it dates the last progress. */
  updatedAt: Date | string | null | undefined;
}

/**
 * The concurrency guard run before T1 and before every synchronous path that could create a
 * workspace. An unreadable timestamp counts as fresh: tearing down a live attempt on bad data
 * is worse than asking the caller to retry later. A timestamp in the future (clock skew between
 * processes) has a negative age and is therefore fresh too.
 */
export function concurrencyVerdict(
  brand: AttemptSnapshot,
  now: Date,
  staleMs: number = DEFAULT_PROVISIONING_STALE_MS,
): ConcurrencyVerdict {
  if (brand.provisioningStatus !== "pending") return "proceed";
  const touched = toMillis(brand.updatedAt);
  const current = now.getTime();
  if (touched === undefined || !Number.isFinite(current)) return "inProgress";
  return current - touched >= staleMs ? "stale" : "inProgress";
}

function toMillis(value: Date | string | null | undefined): number | undefined {
  if (value === null || value === undefined) return undefined;
  const millis = value instanceof Date ? value.getTime() : Date.parse(value);
  return Number.isFinite(millis) ? millis : undefined;
}
