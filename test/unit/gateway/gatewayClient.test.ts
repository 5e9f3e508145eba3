import { describe, expect, it } from "vitest";

import { ServiceError } from "../../../src/domain/errors.ts";
import { createUnconfiguredGatewayClient } from "../../../src/gateway/gatewayClient.ts";
import { EventBus } from "../../../src/observability/events.ts";
import { createLogger } from "../../../src/observability/logger.ts";

describe("the unconfigured gateway client", () => {
  it("fails every call with configurationError before sending, and is not reachable", async () => {
    const events = new EventBus();
    const sent: unknown[] = [];
    events.on("gateway.request", (e) => sent.push(e));
    const client = createUnconfiguredGatewayClient({ events, logger: createLogger({ level: "silent" }) });
    const error = await client.users.getResources("token", "ws").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).code).toBe("configurationError");
    expect(await client.reachable("token")).toBe(false);
    expect(sent).toEqual([]);
    await client.close();
  });
});
