import { type FastifyReply, type FastifyRequest, LogController } from "fastify";

import { callerRequestIdOf } from "./requestId.ts";

/** The registry code a request was answered with, noted by the error handlers for its log line. */
const answeredCodes = new WeakMap<FastifyRequest, string>();

export function noteAnsweredCode(request: FastifyRequest, code: string): void {
  answeredCodes.set(request, code);
}

/**
 * One `info` line per request, written when it is answered: method, URL, route template, status,
 * response time and, for an error answer, its registry code. Fastify's own "incoming request"
 * line moves to `debug`, so a person reading the log at `info` sees each request once.
 */
export class OneLineRequestLog extends LogController {
  constructor() {
    super({ requestIdLogLabel: "requestId" });
  }

  override incomingRequest(request: FastifyRequest): void {
    if (this.isLogDisabled(request)) return;
    request.log.debug({ req: request }, "incoming request");
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (this.isLogDisabled(request)) return;
    const code = answeredCodes.get(request);
    const line = {
      method: request.method,
      url: request.url,
      route: request.routeOptions.url ?? "unmatched",
      statusCode: reply.statusCode,
      responseTime: Math.round(reply.elapsedTime * 10) / 10,
      ...(code ? { code } : {}),
      // A caller's id may repeat across requests: say so, for whoever joins lines by it.
      requestIdFrom: callerRequestIdOf(request.raw) === request.id ? "caller" : "serenity",
    };
    if (error) reply.log.error({ ...line, err: error }, "request errored");
    else reply.log.info(line, "request completed");
  }
}
