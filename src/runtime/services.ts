import { BrandService } from "../brands/brandService.ts";
import type { Db } from "../db/database.ts";
import type { Clock } from "../domain/clock.ts";
import type { EventBus } from "../observability/events.ts";
import type { Logger } from "../observability/logger.ts";
import { OrgService } from "../orgs/orgService.ts";

/** The services every entry point (API, worker, CLI) calls. */
export interface Services {
  orgs: OrgService;
  brands: BrandService;
}

export interface ServiceDeps {
  db: Db;
  clock: Clock;
  events: EventBus;
  logger: Logger;
}

export function createServices(deps: ServiceDeps): Services {
  const orgs = new OrgService({ db: deps.db, clock: deps.clock });
  const brands = new BrandService({ db: deps.db, clock: deps.clock, orgs });
  return { orgs, brands };
}
