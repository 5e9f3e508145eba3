import type { FastifyInstance, FastifyReply } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";

import { ERROR_CODES, ERROR_REGISTRY, isErrorCode } from "../../domain/errors.ts";
import { CONSOLE_SECURITY_HEADERS } from "../console/consoleRoutes.ts";
import { problemTypeOf } from "../problem.ts";
import { retryAfterSecondsOf } from "../retryAfter.ts";

/**
 * The documentation every problem's `type` points at (`/errors/{code}`), public like `/docs`: one
 * HTML page per registry code, and `/errors` listing them all. Generated from the registry, so a
 * new code is documented the moment it exists.
 */
const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ESCAPES[character] ?? character);
}

function entryHtml(code: keyof typeof ERROR_REGISTRY): string {
  const entry = ERROR_REGISTRY[code];
  const retryAfter = retryAfterSecondsOf(code);
  return [
    `<section id="${code}"><h2><a href="${problemTypeOf(code)}">${code}</a></h2>`,
    `<dl><dt>Status</dt><dd>${entry.status}</dd>`,
    `<dt>Title</dt><dd>${escapeHtml(entry.message)}</dd>`,
    `<dt>When</dt><dd>${escapeHtml(entry.when)}</dd>`,
    `<dt>Retry-After</dt><dd>${
      retryAfter === undefined
        ? "not sent"
        : code === "rateLimited"
          ? "the seconds until the window ends"
          : `${retryAfter} s`
    }</dd></dl></section>`,
  ].join("");
}

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><h1>${escapeHtml(title)}</h1><p>Every error answer of the Serenity API is an RFC 9457 problem (<code>application/problem+json</code>) whose <code>type</code> is one of these pages and whose <code>code</code> is the registry code. See <a href="/docs">/docs</a>.</p>${body}</body></html>`;
}

function sendHtml(reply: FastifyReply, html: string) {
  return reply
    .headers(CONSOLE_SECURITY_HEADERS)
    .header("cache-control", "public, max-age=3600")
    .type("text/html; charset=utf-8")
    .send(html);
}

export async function errorDocRoutes(app: FastifyInstance): Promise<void> {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  typed.get("/errors", { config: { public: true }, schema: { hide: true } }, async (_request, reply) =>
    sendHtml(reply, page("Serenity API error codes", ERROR_CODES.map(entryHtml).join(""))),
  );
  typed.get(
    "/errors/:code",
    { config: { public: true }, schema: { hide: true, params: z.object({ code: z.string().max(64) }) } },
    async (request, reply) => {
      const { code } = request.params;
      if (!isErrorCode(code)) return reply.callNotFound();
      return sendHtml(reply, page(`Serenity API error: ${code}`, entryHtml(code)));
    },
  );
}
