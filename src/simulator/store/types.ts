/**
 * The simulator's in-memory model. One store holds both gateways (UM workspaces and PE projects), so
 * a PE write moves units in the UM resources of the project's workspace (spec/gateway.md §3).
 */
export type Dimension = "projects" | "prompts";
export const DIMENSIONS: readonly Dimension[] = ["projects", "prompts"];

export interface UnitCounts {
  used: number;
  drafted: number;
  total: number;
}

export type PerDimension<T> = Record<Dimension, T>;

export interface SimWorkspace {
  id: string;
  title: string;
  parentId: string | null;
  /** The status the workspace settles to: `created`, a terminal failure, or `not ready` for a zombie. */
  status: string;
  createdAt: number;
  /** Status observations still to answer `not ready` (reads mode and `/__sim/status`). */
  notReadyReads: number;
  /** Time-mode settling: `not ready` until this instant (ms since epoch; 0 = no wait). */
  settleUntil: number;
  /** Transfers still to answer 422 `workspace not ready` after settling. */
  notReadyTransfers: number;
  /** Meaningful on roots: a workspace is metered when its root has this on. */
  limitsEnabled: boolean;
  resources: PerDimension<UnitCounts>;
  /** Published units not yet visible in `used` on reads (the async catch-up after a publish). */
  usedLag: {
    pending: PerDimension<number>;
    reads: number;
    until: number;
    /** 0: no time bound (`usedLagMaxMs`). */ endsBy: number;
  };
  /** After a top-up, writes are judged against `previousTotal` until `until` (the enforcement lag). */
  enforcement: PerDimension<{ previousTotal: number; until: number } | null>;
}

export type PublishState = "draft" | "live" | "initial_publish_failed";

export interface SimPrompt {
  id: string;
  name: string;
  live: boolean;
  /** The text as last published (a rename in the draft layer changes `name` only); unset while new. */
  liveName?: string;
  tagIds: string[];
  metadata: Record<string, unknown>;
}

export interface SimTag {
  id: string;
  name: string;
  parentId: string | null;
  live: boolean;
}

export interface SimAssignment {
  id: string;
  /** The catalogue model's id (a UUID string, as live). */
  modelId: string;
}

export interface SimProject {
  id: string;
  workspaceId: string;
  name: string;
  brandNameDisplay: string;
  brandNames: string[];
  domain: string;
  primaryUrl: string | null;
  countryCode: string;
  locationId: number;
  locationName: string;
  /** The catalogue language's id (a UUID string, as live). */
  languageId: string;
  publishState: PublishState;
  /** Changes since the last publish that are not units (a PATCH, a model removal). */
  dirty: boolean;
  publishingReads: number;
  createdAt: number;
  updatedAt: number;
  /** Units this project holds in its workspace's `drafted` (staged) and `used` (published). */
  staged: PerDimension<number>;
  published: PerDimension<number>;
  models: SimAssignment[];
  /** Insertion-ordered; keyed by id. */
  prompts: Map<string, SimPrompt>;
  promptIdByText: Map<string, string>;
  tags: Map<string, SimTag>;
  /** AI benchmarks (the own brand's, `mainBrand`, and competitors'), insertion-ordered; keyed by id. */
  benchmarks: Map<string, SimBenchmark>;
  /** CI competitors, replaced whole by `PUT …/ci/competitors`. */
  ciCompetitors: SimCiCompetitor[];
  /** Project list reads of the workspace that still omit this project (eventual consistency). */
  hiddenFromListReads: number;
}

/** A brand URL of a benchmark (`…/aio/benchmarks/{id}/brand_urls`); `type` is a free string. */
export interface SimBrandUrl {
  id: string;
  url: string;
  type: string;
  createdAt: number;
  updatedAt: number;
}

export interface SimBenchmark {
  id: string;
  brandName: string;
  brandAliases: string[];
  /** Aliases the simulator refuses (shorter than 3 characters): answered as `rejected_brand_aliases`. */
  rejectedAliases: string[];
  domain: string;
  primaryUrl: string;
  color: string;
  favorite: boolean;
  mainBrand: boolean;
  createdAt: number;
  brandUrls: Map<string, SimBrandUrl>;
}

export interface SimCiCompetitor {
  id: string;
  domain: string;
  color: string;
}
