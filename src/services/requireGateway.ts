import { ServiceError } from "../domain/errors.ts";
import type { GatewayClient } from "../gateway/gatewayClient.ts";

/** The gateway client, or 503 configurationError when the process runs without one. */
export function requireGateway(gateway: GatewayClient | undefined): GatewayClient {
  if (!gateway) throw new ServiceError("configurationError");
  return gateway;
}
