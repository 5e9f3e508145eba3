import type { FastifyInstance } from "fastify";

import type { AppDeps } from "../appDeps.ts";
import { allocationRoutes } from "./allocation.ts";
import { brandRoutes } from "./brands.ts";
import { catalogueRoutes } from "./catalogues.ts";
import { errorDocRoutes } from "./errorDocs.ts";
import { generationJobRoutes } from "./generationJobs.ts";
import { healthRoutes } from "./health.ts";
import { jobListRoutes } from "./jobList.ts";
import { jobRoutes } from "./jobs.ts";
import { marketRoutes } from "./markets.ts";
import { orgRoutes } from "./orgs.ts";
import { poolHistoryRoutes } from "./poolHistory.ts";
import { promptManagementRoutes } from "./promptManagement.ts";
import { promptPreviewRoutes } from "./promptPreview.ts";
import { promptRoutes } from "./prompts.ts";
import { upstreamHealthRoutes } from "./upstreamHealth.ts";

/** Every route module, in one list: add a line here for a new one. */
export async function registerRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  await healthRoutes(app, deps);
  await errorDocRoutes(app);
  await orgRoutes(app, deps);
  await brandRoutes(app, deps);
  await jobRoutes(app, deps);
  await marketRoutes(app, deps);
  await generationJobRoutes(app, deps);
  await promptRoutes(app, deps);
  await promptManagementRoutes(app, deps);
  await promptPreviewRoutes(app, deps);
  await catalogueRoutes(app, deps);
  await allocationRoutes(app, deps);
  await poolHistoryRoutes(app, deps);
  await jobListRoutes(app, deps);
  await upstreamHealthRoutes(app, deps);
}
