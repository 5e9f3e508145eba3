import type { FastifyReply, FastifyRequest } from "fastify";

import type { Principal } from "../auth/principal.ts";
import type { TokenVerifier } from "../auth/tokenVerifier.ts";
import { ServiceError } from "../domain/errors.ts";

declare module "fastify" {
  interface FastifyRequest {
    principal?: Principal;
  }
  interface FastifyContextConfig {
    /** Routes reachable without a bearer token (health, metrics, docs). */
    public?: boolean;
  }
}

function bearerOf(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

export function authenticationHook(verifier: TokenVerifier) {
  return async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    if (request.routeOptions.config?.public) return;
    const bearer = bearerOf(request);
    const principal = bearer ? await verifier.verify(bearer) : undefined;
    if (!principal) throw new ServiceError("authenticationRequired");
    request.principal = principal;
  };
}

/** The authenticated caller of a protected route (the hook guarantees it is set). */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new ServiceError("authenticationRequired");
  return request.principal;
}
