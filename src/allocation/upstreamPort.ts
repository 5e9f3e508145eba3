import type { TransferTargets, WorkspaceResources } from "../domain/allocation.ts";
import type { GatewayErrorKind } from "../gateway/errors.ts";

/**
 * The narrow port allocation needs from the upstream (the User Manager's resources read and
 * transfer). The gateway adapter implements it; tests of pure rules may use an in-memory model.
 * Every call acts for a user, so the caller's bearer travels with it.
 */
export interface AllocationUpstream {
  /** `GET …/workspaces/{ws}/resources`: one round trip. */
  readResources(bearer: string, workspaceId: string): Promise<WorkspaceResources>;
  /** `POST …/workspaces/{ws}/resources/transfer`: absolute totals, all or nothing. */
  transfer(bearer: string, subWorkspaceId: string, targets: TransferTargets): Promise<void>;
  /**
   * `GET …/workspaces/{parent}/family`: the parent's direct children (id, title). Optional: without
   * it the pool view cannot show sub-workspaces no brand points at (in-memory test models).
   */
  listChildren?(bearer: string, parentWorkspaceId: string): Promise<{ id: string; title: string }[]>;
  /**
   * `GET …/workspaces/{ws}`: the `ai` product's `limits_enabled` (`null` when the answer has none),
   * the parent's own metering (spec/allocation.md §13). Optional: without it metering stays unknown
   * (in-memory test models).
   */
  readAiLimitsEnabled?(
    bearer: string,
    workspaceId: string,
    options?: { signal?: AbortSignal },
  ): Promise<boolean | null>;
  /** The classified kind of an upstream failure; `undefined` for anything that is not one. */
  failureKind(error: unknown): UpstreamFailureKind | undefined;
}

/** The gateway client's error classification (spec/gateway.md §5), shared rather than restated. */
export type UpstreamFailureKind = GatewayErrorKind;
