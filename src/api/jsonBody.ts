import type { FastifyInstance } from "fastify";

import { ServiceError } from "../domain/errors.ts";

/**
 * The JSON body parser: Fastify's own (prototype-poisoning checks included), behind a strict
 * UTF-8 decode. Without it, invalid UTF-8 bytes and lone UTF-16 surrogates (`"\ud800"`) are
 * silently turned into U+FFFD and stored, so a caller's text changes without a word. A body that
 * is not well-formed Unicode text is refused with 400 instead (docs/decisions/0009).
 */

const NOT_UNICODE = "The request body must be well-formed UTF-8 text.";
/** A high surrogate not followed by a low one, or a low surrogate not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function hasLoneSurrogate(value: unknown): boolean {
  if (typeof value === "string") return LONE_SURROGATE.test(value);
  if (Array.isArray(value)) return value.some(hasLoneSurrogate);
  if (value !== null && typeof value === "object")
    return Object.entries(value).some(([key, item]) => LONE_SURROGATE.test(key) || hasLoneSurrogate(item));
  return false;
}

export function registerJsonBodyParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser("error", "error");
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "buffer" }, (request, body, done) => {
    let text: string;
    try {
      text = decoder.decode(body as Buffer);
    } catch {
      done(new ServiceError("invalidRequest", { message: NOT_UNICODE }), undefined);
      return;
    }
    parseJson(request, text, (error, parsed) => {
      if (error) return done(error, undefined);
      if (hasLoneSurrogate(parsed))
        return done(new ServiceError("invalidRequest", { message: NOT_UNICODE }), undefined);
      done(null, parsed);
    });
  });
}
