// The API's JSON as the console reads it, taken from the route schemas themselves (src/api/schemas),
// so a change to a response shape fails the console's type check instead of a page at run time.
import type { z } from "zod";

import type { ledgerPageSchema, poolViewSchema } from "../../src/api/schemas/allocation.ts";
import type {
  brandAccepted,
  brandDeleteAccepted,
  brandList,
  brandSchema,
  brandUpdated,
  patchBrandBody,
} from "../../src/api/schemas/brands.ts";
import type {
  jobListPageSchema,
  jobSummarySchema,
  jobTimelineSchema,
} from "../../src/api/schemas/jobList.ts";
import type { jobSchema } from "../../src/api/schemas/jobs.ts";
import type { marketList, marketSchema } from "../../src/api/schemas/markets.ts";
import type { orgList, orgSchema } from "../../src/api/schemas/orgs.ts";
import type { poolHistorySchema, poolSummariesSchema } from "../../src/api/schemas/poolHistory.ts";
import type { promptPreviewSchema } from "../../src/api/schemas/promptPreview.ts";
import type { bulkPromptsResponse, promptList } from "../../src/api/schemas/prompts.ts";
import type { problem } from "../../src/api/schemas/routeErrors.ts";
import type { upstreamHealthSchema } from "../../src/api/schemas/upstreamHealth.ts";

/** Every error answer (RFC 9457 problem details, docs/decisions/0037). */
export type Problem = z.output<typeof problem>;
export type Org = z.output<typeof orgSchema>;
export type OrgList = z.output<typeof orgList>;
export type Brand = z.output<typeof brandSchema>;
export type BrandList = z.output<typeof brandList>;
export type BrandAccepted = z.output<typeof brandAccepted>;
export type BrandPatch = z.input<typeof patchBrandBody>;
export type BrandUpdated = z.output<typeof brandUpdated>;
export type BrandDeleteAccepted = z.output<typeof brandDeleteAccepted>;
export type Market = z.output<typeof marketSchema>;
export type MarketList = z.output<typeof marketList>;
export type PromptPage = z.output<typeof promptList>;
export type Prompt = PromptPage["items"][number];
export type BulkPromptResult = z.output<typeof bulkPromptsResponse>;
export type PoolView = z.output<typeof poolViewSchema>;
export type PoolDimension = NonNullable<PoolView["pool"]>["projects"];
export type PoolBrand = PoolView["brands"][number];
export type LedgerPage = z.output<typeof ledgerPageSchema>;
export type LedgerEntry = LedgerPage["items"][number];
export type PoolHistory = z.output<typeof poolHistorySchema>;
export type PoolSample = PoolHistory["items"][number];
export type PoolSummaries = z.output<typeof poolSummariesSchema>;
export type UpstreamHealth = z.output<typeof upstreamHealthSchema>;
export type Job = z.output<typeof jobSchema>;
export type JobSummary = z.output<typeof jobSummarySchema>;
export type JobListPage = z.output<typeof jobListPageSchema>;
export type JobTimeline = z.output<typeof jobTimelineSchema>;
export type JobHop = JobTimeline["hops"][number];
export type PromptPreview = z.output<typeof promptPreviewSchema>;
export type PreviewedPrompt = PromptPreview["prompts"][number];
/** `promptGeneration` of a create market / create brand / activate answer (spec/generation.md §2). */
export interface PromptGenerationHandle {
  jobId: string;
  status: string;
  reused: boolean;
}
