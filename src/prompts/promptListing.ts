import { createHash } from "node:crypto";

import { MAX_PROMPT_PAGE_SIZE, type ProjectEngineClient } from "../gateway/projectEngineClient.ts";
import type { Prompt, PromptSortField } from "../gateway/types.ts";
import type { ProjectRef } from "../markets/market.ts";
import { decodeCursor, encodeCursor } from "./promptCursor.ts";

export type PromptSort = "createdAt" | "updatedAt" | "text";

export interface PromptListOptions {
  includeDrafts: boolean;
  search?: string;
  /** Category and tag ids: a prompt carrying any of them matches (the upstream's filter). */
  tagIds: string[];
  sort?: PromptSort;
  order: "asc" | "desc";
  limit: number;
  cursor?: string;
  /** Page mode: start at this position (no cursor). */
  startAt?: number;
}

export interface PromptListPage {
  /** The position of the page's first item. */
  offset: number;
  items: Prompt[];
  total: number;
  nextCursor: string | null;
}

const SORT_FIELDS: Record<PromptSort, PromptSortField> = {
  createdAt: "created_at",
  updatedAt: "updated_at",
  text: "name",
};

/**
 * One page of a market's prompts from the upstream's own by-tags listing (its search, tag filter
 * and sort; docs/decisions/0040): the upstream page holding the cursor's position is read (and the
 * next one when the page runs out), and the items after the cursor's last item are served.
 */
export async function listPromptPage(
  projects: ProjectEngineClient,
  ref: ProjectRef,
  options: PromptListOptions,
): Promise<PromptListPage> {
  const query = fingerprint(options);
  const cursor = options.cursor === undefined ? undefined : decodeCursor(options.cursor, query);
  const read = (page: number) =>
    projects.listPrompts(ref.bearer, ref.workspaceId, ref.projectId, {
      draft: options.includeDrafts,
      tagIds: options.tagIds,
      search: options.search,
      sortField: options.sort === undefined ? undefined : SORT_FIELDS[options.sort],
      sortDir: options.order,
      page,
      limit: MAX_PROMPT_PAGE_SIZE,
    });
  // The window starts one item before the offset: the cursor's last item, where nothing moved.
  const start = cursor === undefined ? (options.startAt ?? 0) : Math.max(0, cursor.offset - 1);
  let page = Math.floor(start / MAX_PROMPT_PAGE_SIZE) + 1;
  const first = await read(page);
  let window = first.items;
  let windowStart = (page - 1) * MAX_PROMPT_PAGE_SIZE;
  const position = cursor === undefined ? start : locate(window, windowStart, cursor);
  while (
    window.length - (position - windowStart) < options.limit &&
    page * MAX_PROMPT_PAGE_SIZE < first.total
  ) {
    page += 1;
    const more = await read(page);
    if (more.items.length === 0) break;
    window = [...window.slice(Math.max(0, position - windowStart)), ...more.items];
    windowStart = Math.max(windowStart, position);
  }
  const items = window.slice(position - windowStart, position - windowStart + options.limit);
  const next = position + items.length;
  const last = items.at(-1);
  return {
    offset: position,
    items,
    total: first.total,
    nextCursor: last && next < first.total ? encodeCursor({ offset: next, after: last.id, query }) : null,
  };
}

/**
 * The absolute position after the cursor's last item: where it now stands in the window when it
 * is there (items created or deleted before it moved it), else the cursor's offset.
 */
function locate(window: Prompt[], windowStart: number, cursor: { offset: number; after: string }): number {
  const at = window.findIndex((prompt) => prompt.id === cursor.after);
  return at === -1 ? cursor.offset : windowStart + at + 1;
}

function fingerprint(options: PromptListOptions): string {
  const key = JSON.stringify([
    options.includeDrafts,
    options.search ?? "",
    [...options.tagIds].sort(),
    options.sort ?? "",
    options.order,
  ]);
  return createHash("sha256").update(key).digest("base64url").slice(0, 16);
}
