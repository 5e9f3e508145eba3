import type { AllocationUpstream, UpstreamFailureKind } from "../../src/allocation/upstreamPort.ts";
import {
  DIMENSIONS,
  type Need,
  type TransferTargets,
  type Units,
  type WorkspaceResources,
} from "../../src/domain/allocation.ts";

/**
 * A small in-memory model of the upstream's allocation semantics (spec/gateway.md §3), for pure
 * tests and the conservation property: transfers are absolute and all or nothing, a 0 is silently
 * ignored, a top-up is refused with `poolExhausted` when `delta > parent.total − parent.used`, and a
 * metered write over `total` is refused with `meteredQuota`. It records every call and checks the
 * conservation invariant after every transfer.
 */
export class FakeUpstreamError extends Error {
  constructor(readonly kind: UpstreamFailureKind) {
    super(`fake upstream: ${kind}`);
  }
}

interface FakeWorkspace {
  parentId: string | null;
  resources: WorkspaceResources;
  notReadyTransfers: number;
}

export interface FakeCall {
  op: "read" | "transfer" | "write" | "publish" | "delete";
  workspaceId: string;
  targets?: TransferTargets;
  status: "ok" | UpstreamFailureKind;
}

const blank = (): WorkspaceResources => ({
  projects: { used: 0, drafted: 0, total: 0 },
  prompts: { used: 0, drafted: 0, total: 0 },
});

export class InMemoryUpstream implements AllocationUpstream {
  readonly calls: FakeCall[] = [];
  /** Invariant breaches seen (conservation, a 0 sent); a test asserts it stays empty. */
  readonly violations: string[] = [];
  readonly #workspaces = new Map<string, FakeWorkspace>();
  #conserved = 0;
  readonly #staleReads = new Map<string, number>();

  /** Yields before answering: lets concurrent operations interleave (a test may randomise it). */
  yieldTicks: () => number = () => 0;

  addParent(id: string, totals: Units): void {
    const resources = blank();
    for (const dimension of DIMENSIONS) resources[dimension].total = totals[dimension];
    this.#workspaces.set(id, { parentId: null, resources, notReadyTransfers: 0 });
    this.#conserved = this.#poolSum(id);
  }

  addChild(id: string, parentId: string, totals: Units = { projects: 0, prompts: 0 }): void {
    const resources = blank();
    const parent = this.#get(parentId).resources;
    for (const dimension of DIMENSIONS) {
      resources[dimension].total = totals[dimension];
      parent[dimension].total -= totals[dimension];
    }
    this.#workspaces.set(id, { parentId, resources, notReadyTransfers: 0 });
  }

  /** The next `count` reads of the workspace report `used` as 0 (the post-publish lag upstream). */
  staleUsedReads(id: string, count: number): void {
    this.#staleReads.set(id, count);
  }

  /** The next `count` transfers to the workspace answer "workspace not ready". */
  failTransfersNotReady(id: string, count: number): void {
    this.#get(id).notReadyTransfers = count;
  }

  resources(id: string): WorkspaceResources {
    return structuredClone(this.#get(id).resources);
  }

  /** `parent.total + Σ child totals` per dimension (constant under every transfer). */
  poolSum(parentId: string): Units {
    const sum = { projects: 0, prompts: 0 };
    for (const [id, workspace] of this.#workspaces) {
      if (id !== parentId && workspace.parentId !== parentId) continue;
      for (const dimension of DIMENSIONS) sum[dimension] += workspace.resources[dimension].total;
    }
    return sum;
  }

  #poolSum(parentId: string): number {
    const sum = this.poolSum(parentId);
    return sum.projects * 1_000_000 + sum.prompts;
  }

  #get(id: string): FakeWorkspace {
    const workspace = this.#workspaces.get(id);
    if (!workspace) throw new FakeUpstreamError("forbidden");
    return workspace;
  }

  async #pause(): Promise<void> {
    for (let tick = this.yieldTicks(); tick > 0; tick--)
      await new Promise((resolve) => setImmediate(resolve));
  }

  #fail(call: FakeCall, kind: UpstreamFailureKind): never {
    this.calls.push({ ...call, status: kind });
    throw new FakeUpstreamError(kind);
  }

  failureKind(error: unknown): UpstreamFailureKind | undefined {
    return error instanceof FakeUpstreamError ? error.kind : undefined;
  }

  async readResources(_bearer: string, workspaceId: string): Promise<WorkspaceResources> {
    await this.#pause();
    const call: FakeCall = { op: "read", workspaceId, status: "ok" };
    if (!this.#workspaces.has(workspaceId)) this.#fail(call, "forbidden");
    const snapshot = this.resources(workspaceId);
    const stale = this.#staleReads.get(workspaceId) ?? 0;
    if (stale > 0) {
      this.#staleReads.set(workspaceId, stale - 1);
      for (const dimension of DIMENSIONS) snapshot[dimension].used = 0;
    }
    this.calls.push(call);
    await this.#pause();
    return snapshot;
  }

  async transfer(_bearer: string, subWorkspaceId: string, targets: TransferTargets): Promise<void> {
    await this.#pause();
    const call: FakeCall = {
      op: "transfer",
      workspaceId: subWorkspaceId,
      targets: { ...targets },
      status: "ok",
    };
    const child = this.#workspaces.get(subWorkspaceId);
    if (!child || child.parentId === null) this.#fail(call, "forbidden");
    if (child.notReadyTransfers > 0) {
      child.notReadyTransfers--;
      this.#fail(call, "workspaceNotReady");
    }
    const parent = this.#get(child.parentId).resources;
    const deltas: Partial<Units> = {};
    for (const dimension of DIMENSIONS) {
      const target = targets[dimension];
      if (target === undefined) continue;
      if (target === 0) {
        this.violations.push(`a transfer sent 0 for ${dimension}`);
        continue; // upstream ignores it silently
      }
      const delta = target - child.resources[dimension].total;
      if (delta > parent[dimension].total - parent[dimension].used) this.#fail(call, "poolExhausted");
      deltas[dimension] = delta;
    }
    for (const dimension of DIMENSIONS) {
      const delta = deltas[dimension];
      if (delta === undefined) continue;
      child.resources[dimension].total += delta;
      parent[dimension].total -= delta;
    }
    this.calls.push(call);
    if (this.#poolSum(child.parentId) !== this.#conserved) this.violations.push("pool sum changed");
    await this.#pause();
  }

  /** A metered write staging `need` (project create, prompt create, model add): all or nothing. */
  async meteredWrite(workspaceId: string, need: Need): Promise<void> {
    await this.#pause();
    const call: FakeCall = { op: "write", workspaceId, status: "ok" };
    const resources = this.#get(workspaceId).resources;
    for (const dimension of DIMENSIONS) {
      const { used, drafted, total } = resources[dimension];
      if (used + drafted + (need[dimension] ?? 0) > total) this.#fail(call, "meteredQuota");
    }
    for (const dimension of DIMENSIONS) resources[dimension].drafted += need[dimension] ?? 0;
    this.calls.push(call);
  }

  /** Publish: staged units become published. */
  async publish(workspaceId: string): Promise<void> {
    await this.#pause();
    const resources = this.#get(workspaceId).resources;
    for (const dimension of DIMENSIONS) {
      resources[dimension].used += resources[dimension].drafted;
      resources[dimension].drafted = 0;
    }
    this.calls.push({ op: "publish", workspaceId, status: "ok" });
  }

  /** A delete returning units (drafted first, then used). */
  async deleteUnits(workspaceId: string, units: Need): Promise<void> {
    await this.#pause();
    const resources = this.#get(workspaceId).resources;
    for (const dimension of DIMENSIONS) {
      let left = units[dimension] ?? 0;
      const fromDrafted = Math.min(left, resources[dimension].drafted);
      resources[dimension].drafted -= fromDrafted;
      left -= fromDrafted;
      resources[dimension].used -= Math.min(left, resources[dimension].used);
    }
    this.calls.push({ op: "delete", workspaceId, status: "ok" });
  }

  count(op: FakeCall["op"], workspaceId?: string): number {
    return this.calls.filter(
      (call) => call.op === op && (workspaceId === undefined || call.workspaceId === workspaceId),
    ).length;
  }
}
