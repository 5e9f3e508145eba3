import { randomBytes } from "node:crypto";

import { gatewayAllocationUpstream } from "../../src/allocation/gatewayAllocationUpstream.ts";
import type { Db } from "../../src/db/database.ts";
import { systemClock } from "../../src/domain/clock.ts";
import { createGatewayClient, type GatewayClient } from "../../src/gateway/gatewayClient.ts";
import { EventBus } from "../../src/observability/events.ts";
import { createLogger } from "../../src/observability/logger.ts";
import { UpstreamReconciler } from "../../src/operations/upstreamReconciler.ts";
import { createServices, type Services } from "../../src/runtime/services.ts";

/**
 * What an API process holds, built in the test's own process on a given database and simulator:
 * the gateway client (real HTTP), the services, and an upstream reconciler to observe and
 * reconcile with (as `serenity worker` builds it). The fault harness's worlds and the tests that
 * run their own database (test/reliability/postgresRestart.test.ts) share it. Allocation is on
 * (SERENITY_DYNAMIC_ALLOCATION, read per use from this process's environment), as the harness's
 * `serenity` processes run: the reconciler's releases act instead of answering `disabled`.
 */
export interface InProcessUpstreamSide {
  gateway: GatewayClient;
  services: Services;
  reconciler: UpstreamReconciler;
  credentialKey: Buffer;
}

export function inProcessUpstreamSide(db: Db, simulatorUrl: string): InProcessUpstreamSide {
  process.env.SERENITY_DYNAMIC_ALLOCATION = "true";
  const events = new EventBus();
  const logger = createLogger({ level: "silent" });
  const credentialKey = randomBytes(32);
  const gateway = createGatewayClient({
    projectsBaseUrl: simulatorUrl,
    usersBaseUrl: simulatorUrl,
    events,
    logger,
    clock: systemClock,
  });
  const services = createServices({ db, clock: systemClock, events, logger, credentialKey, gateway });
  const reconciler = new UpstreamReconciler({
    db,
    clock: systemClock,
    logger,
    events,
    gateway,
    upstream: gatewayAllocationUpstream(gateway),
    allocation: services.allocation,
  });
  return { gateway, services, reconciler, credentialKey };
}
