import type { FastifyReply } from "fastify";
import type { z } from "zod";

export const PE_PREFIX = "/enterprise/projects/api";
export const UM_PREFIX = "/enterprise/users/api";

export type Gateway = "pe" | "um";

export function gatewayOf(path: string): Gateway | undefined {
  if (path.startsWith(PE_PREFIX)) return "pe";
  if (path.startsWith(UM_PREFIX)) return "um";
  return undefined;
}

/** The nginx page PE answers a metered write over quota with — no quota wording at all. */
export const NGINX_405_PAGE =
  "<html>\r\n<head><title>405 Not Allowed</title></head>\r\n<body>\r\n<center><h1>405 Not Allowed</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n";

export const NGINX_504_PAGE =
  "<html>\r\n<head><title>504 Gateway Time-out</title></head>\r\n<body>\r\n<center><h1>504 Gateway Time-out</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n";

export const TEXT_PLAIN = "text/plain; charset=utf-8";
export const APPLICATION_JSON = "application/json; charset=utf-8";
export const TEXT_HTML = "text/html";

/** PE sends its application errors (400, 404, 409, 500) as JSON text with a `text/plain` content type. */
export function peError(reply: FastifyReply, status: number, message: string): FastifyReply {
  return reply.code(status).type(TEXT_PLAIN).send(JSON.stringify({ message }));
}

export function umError(reply: FastifyReply, status: number, message: string): FastifyReply {
  return reply.code(status).type(APPLICATION_JSON).send(JSON.stringify({ message }));
}

export function gatewayError(
  reply: FastifyReply,
  gateway: Gateway,
  status: number,
  message: string,
): FastifyReply {
  return gateway === "pe" ? peError(reply, status, message) : umError(reply, status, message);
}

export function notAuthenticated(reply: FastifyReply): FastifyReply {
  return reply
    .code(401)
    .type(APPLICATION_JSON)
    .send(JSON.stringify({ detail: "Not authenticated" }));
}

/**
 * 403 on both gateways as the documents declare it: JSON, `application/json`. (The live fact that PE
 * sends its application errors as `text/plain` names 400, 404, 409 and 500, not 403.)
 */
export function invalidAccess(reply: FastifyReply): FastifyReply {
  return umError(reply, 403, "invalid access attempt");
}

export function notFound(reply: FastifyReply): FastifyReply {
  return peError(reply, 404, "not found");
}

/** The disguised quota rejection: 405 with an HTML body. */
export function quotaRejected(reply: FastifyReply): FastifyReply {
  return reply.code(405).type(TEXT_HTML).send(NGINX_405_PAGE);
}

/** A genuine wrong-method 405: JSON body. */
export function methodNotAllowed(reply: FastifyReply): FastifyReply {
  return reply
    .code(405)
    .type(APPLICATION_JSON)
    .send(JSON.stringify({ message: "Method Not Allowed" }));
}

/**
 * Semrush's answer to a call over its request limits (spec/gateway.md §7): 429, a short JSON body,
 * and — unlike most APIs — no `Retry-After` and no rate-limit headers, so a client cannot learn
 * when to come back and must pace itself.
 */
export function tooManyRequests(reply: FastifyReply): FastifyReply {
  return reply
    .code(429)
    .type(APPLICATION_JSON)
    .send(JSON.stringify({ message: "Too Many Requests" }));
}

export const INSUFFICIENT_UNITS = "insufficient available units in subscription";
export const WORKSPACE_NOT_READY = "workspace not ready";

/**
 * Parses a body or query with zod; on failure answers like the gateway would (UM: 422 with a
 * FastAPI-style `detail` list; PE: 400 text/plain) and returns undefined.
 */
export function parseOrReject<S extends z.ZodType>(
  schema: S,
  input: unknown,
  reply: FastifyReply,
  gateway: Gateway,
): z.output<S> | undefined {
  const parsed = schema.safeParse(input ?? {});
  if (parsed.success) return parsed.data;
  if (gateway === "um") {
    const detail = parsed.error.issues.map((issue) => ({
      loc: ["body", ...issue.path.map(String)],
      msg: issue.message,
      type: issue.code,
    }));
    void reply.code(422).type(APPLICATION_JSON).send(JSON.stringify({ detail }));
  } else {
    const first = parsed.error.issues[0];
    const where = first && first.path.length > 0 ? `${first.path.join(".")}: ` : "";
    void peError(reply, 400, `${where}${first?.message ?? "invalid request"}`);
  }
  return undefined;
}
