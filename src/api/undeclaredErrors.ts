import type { FastifyRequest } from "fastify";

import type { EventBus } from "../observability/events.ts";
import { isDeclaredError } from "./schemas/routeErrors.ts";

/**
 * Reports an error answer whose code the route's declared error responses do not list: the
 * OpenAPI document would be wrong about that route. The answer itself goes out unchanged.
 */
export function reportUndeclared(
  events: EventBus,
  request: FastifyRequest,
  status: number,
  code: string,
): void {
  const responses = (request.routeOptions.schema as { response?: Record<number, unknown> } | undefined)
    ?.response;
  if (isDeclaredError(responses, status, code) !== false) return;
  const route = request.routeOptions.url ?? "unmatched";
  request.log.error({ code, status, route }, "the route answered an error code it does not declare");
  events.emit("http.undeclaredErrorCode", { method: request.method, route, status, code });
}
