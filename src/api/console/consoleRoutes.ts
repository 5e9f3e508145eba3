import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";

import { ERROR_REGISTRY } from "../../domain/errors.ts";
import { sendProblem } from "../problem.ts";
import { ASSETS_PREFIX, type ConsoleAsset, type ConsoleBundle, consoleBundle } from "./consoleBundle.ts";

/**
 * Headers of every console response (spec/console.md §2). The policy allows scripts, styles,
 * images and API calls from our own origin only: no inline script or style element, no
 * third-party origin, no plugin, no framing, and no native form submission (the sign-in form is
 * handled by script, so a token can never travel in a form's URL).
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

export const CONSOLE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": CONSOLE_CSP,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
};

const IMMUTABLE = "public, max-age=31536000, immutable";

export interface ConsoleRoutesOptions {
  /** Where the bundle comes from (tests point it at a fixture folder). */
  bundle?: () => Promise<ConsoleBundle>;
}

/** The best encoding the client accepts among those we hold (brotli, then gzip). */
function encodingFor(request: FastifyRequest): "br" | "gzip" | undefined {
  const accepted = String(request.headers["accept-encoding"] ?? "")
    .split(",")
    .map((part) => part.trim().split(";"))
    .filter(([, q]) => !q || !/^\s*q=0(\.0*)?\s*$/.test(q))
    .map(([name]) => name?.trim().toLowerCase());
  if (accepted.includes("br")) return "br";
  if (accepted.includes("gzip")) return "gzip";
  return undefined;
}

function send(request: FastifyRequest, reply: FastifyReply, asset: ConsoleAsset, cacheControl: string) {
  const encoding = encodingFor(request);
  const body = encoding ? asset[encoding] : asset.identity;
  void reply.headers(CONSOLE_SECURITY_HEADERS).headers({
    "content-type": asset.contentType,
    "cache-control": cacheControl,
    vary: "accept-encoding",
  });
  if (encoding) void reply.header("content-encoding", encoding);
  return reply.send(body);
}

function notFound(request: FastifyRequest, reply: FastifyReply) {
  return sendProblem(request, reply.headers(CONSOLE_SECURITY_HEADERS), {
    status: 404,
    code: "notFound",
    message: ERROR_REGISTRY.notFound.message,
  });
}

/**
 * The operator console, served by the API process (ADR 0011): `/` and every `/console/…` page
 * answer with the same small HTML document (the page is chosen in the browser, so deep links work),
 * and `/console/assets/<version>/…` serves the versioned files, cached for a year. These routes
 * are public: the page holds no data; everything it shows comes from the authenticated API.
 */
export async function consoleRoutes(app: FastifyInstance, options: ConsoleRoutesOptions = {}): Promise<void> {
  const bundle = options.bundle ?? (() => consoleBundle());
  const route = { config: { public: true }, schema: { hide: true } } as const;

  const page = async (request: FastifyRequest, reply: FastifyReply) => {
    const { indexHtml, version } = await bundle();
    const etag = `"${version}"`;
    if (request.headers["if-none-match"] === etag) {
      return reply.headers(CONSOLE_SECURITY_HEADERS).header("etag", etag).status(304).send();
    }
    void reply.header("etag", etag);
    // The page names the current asset version: revalidate it on every load.
    return send(request, reply, indexHtml, "no-cache");
  };

  app.get("/", route, page);
  app.get("/console", route, page);
  app.get<{ Params: { "*": string } }>("/console/*", route, async (request, reply) => {
    const rest = request.params["*"];
    const assetsPath = ASSETS_PREFIX.slice("/console/".length);
    if (rest !== assetsPath && !rest.startsWith(`${assetsPath}/`)) return page(request, reply);
    const { version, assets } = await bundle();
    const [, askedVersion, ...file] = rest.split("/");
    const asset = askedVersion === version ? assets.get(file.join("/")) : undefined;
    if (!asset) return notFound(request, reply);
    return send(request, reply, asset, IMMUTABLE);
  });
}
