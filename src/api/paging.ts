import { z } from "zod";

import { ServiceError } from "../domain/errors.ts";

/**
 * The one paging convention of every list (spec/api.md §6, docs/decisions/0037): the query takes
 * `limit` (1 to 200) and `cursor` (opaque: the `nextCursor` of the previous page), and the answer
 * is `{items, nextCursor}`, `nextCursor` null on the last page. A new list route takes
 * `pageQueryFields` into its query schema, `pageSchema(...)` as its answer, and either pages in
 * its database statement with `decodeCursor`/`encodeCursor`, or pages a whole list it holds with
 * `pageOf`.
 */
export const PAGE_LIMIT_MAX = 200;
export const PAGE_LIMIT_DEFAULT = 50;

/** 1 to 200, exactly: the pattern states the bound the validation enforces. */
const LIMIT_PATTERN = /^(?:[1-9]|[1-9]\d|1\d\d|200)$/;
const CURSOR_PATTERN = /^[A-Za-z0-9_-]{1,400}$/;
const LIMIT_MESSAGE = `must be an integer from 1 to ${PAGE_LIMIT_MAX}`;
const CURSOR_MESSAGE = "must be a cursor this list gave out";

/** `limit` in a query string; `fallback` when absent (50 unless a list says otherwise). */
export function limitParam(fallback: number = PAGE_LIMIT_DEFAULT) {
  return z
    .string()
    .regex(LIMIT_PATTERN, LIMIT_MESSAGE)
    .optional()
    .transform((value) => (value === undefined ? fallback : Number(value)))
    .meta({ description: `Items per page, 1 to ${PAGE_LIMIT_MAX} (default ${fallback})` });
}

export const cursorParam = z
  .string()
  .regex(CURSOR_PATTERN, CURSOR_MESSAGE)
  .optional()
  .meta({ description: "The `nextCursor` of the previous page; absent for the first page" });

/** The two paging fields, to spread into a list's query schema. */
export function pageQueryFields(fallbackLimit: number = PAGE_LIMIT_DEFAULT) {
  return { limit: limitParam(fallbackLimit), cursor: cursorParam };
}

/** The answer of a list: its items and the cursor of the next page. */
export function pageFields<T extends z.ZodType>(item: T) {
  return {
    items: z.array(item),
    nextCursor: z.string().nullable().describe("Pass as `cursor` for the next page; null on the last page"),
  };
}

/** An opaque cursor: the position a list resumes after, as base64url JSON. */
export function encodeCursor(position: Record<string, string | number>): string {
  return Buffer.from(JSON.stringify(position), "utf8").toString("base64url");
}

/** The position a cursor names, checked against the keys and types the list expects; else 400. */
export function decodeCursor<K extends string>(
  cursor: string,
  shape: Record<K, "string" | "number">,
): Record<K, string | number> {
  let position: unknown;
  try {
    position = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    position = undefined;
  }
  const keys = Object.keys(shape) as K[];
  const valid =
    typeof position === "object" &&
    position !== null &&
    !Array.isArray(position) &&
    Object.keys(position).length === keys.length &&
    keys.every((key) => typeof (position as Record<string, unknown>)[key] === shape[key]);
  if (!valid) throw new ServiceError("invalidRequest", { message: `cursor ${CURSOR_MESSAGE}.` });
  return position as Record<K, string | number>;
}

/**
 * One page of a whole list a route holds (orgs, brands, markets): items ordered by `keyOf`
 * (unique, compared as strings), the page after the cursor's key. A key inserted or removed
 * between two pages moves nothing else: no item is skipped or shown twice.
 */
export function pageOf<T>(
  all: readonly T[],
  keyOf: (item: T) => string,
  query: { limit: number; cursor?: string | undefined },
): { items: T[]; nextCursor: string | null } {
  const after =
    query.cursor === undefined ? undefined : String(decodeCursor(query.cursor, { after: "string" }).after);
  const ordered = [...all]
    .map((item) => ({ item, key: keyOf(item) }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const rest = after === undefined ? ordered : ordered.filter(({ key }) => key > after);
  const page = rest.slice(0, query.limit);
  const last = page.at(-1);
  return {
    items: page.map(({ item }) => item),
    nextCursor: rest.length > query.limit && last ? encodeCursor({ after: last.key }) : null,
  };
}
