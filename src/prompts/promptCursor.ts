import { ServiceError } from "../domain/errors.ts";

/**
 * The prompt list's opaque cursor: where the next page starts (`offset`), the id of the last item
 * served (`after`), and a fingerprint of the query it belongs to. The next page is read from the
 * upstream's listing around `offset` and starts right after `after` wherever it now stands, so
 * prompts created or deleted before it (in the list's order) neither repeat nor skip an item.
 */
export interface PromptCursor {
  offset: number;
  after: string;
  query: string;
}

export function encodeCursor(cursor: PromptCursor): string {
  return Buffer.from(JSON.stringify([cursor.offset, cursor.after, cursor.query])).toString("base64url");
}

/** The cursor of `raw` for the query `query`; a malformed one, or one of another query, is a 400. */
export function decodeCursor(raw: string, query: string): PromptCursor {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(raw, "base64url").toString("utf8"));
  } catch {
    parsed = undefined;
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 3 ||
    !Number.isInteger(parsed[0]) ||
    (parsed[0] as number) < 0 ||
    typeof parsed[1] !== "string" ||
    typeof parsed[2] !== "string"
  ) {
    throw new ServiceError("invalidRequest", { message: "cursor is not a cursor of this list" });
  }
  if (parsed[2] !== query) {
    throw new ServiceError("invalidRequest", {
      message: "cursor belongs to another query; start again without it",
    });
  }
  return { offset: parsed[0] as number, after: parsed[1] as string, query };
}
