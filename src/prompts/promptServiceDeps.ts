import type { Db } from "../db/database.ts";
import type { Clock } from "../domain/clock.ts";
import type { MeteredWriteGuardFactory } from "../domain/meteredWrites.ts";
import type { GatewayClient } from "../gateway/gatewayClient.ts";
import type { MarketService } from "../markets/marketService.ts";
import type { Logger } from "../observability/logger.ts";
import type { OrgService } from "../orgs/orgService.ts";

export interface PromptServiceDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  orgs: OrgService;
  markets: MarketService;
  gateway: GatewayClient;
  meteredWrites: MeteredWriteGuardFactory;
}
