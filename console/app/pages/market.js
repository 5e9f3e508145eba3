// @ts-check
import { useState } from "../../vendor/hooks.js";
import { ApiError, isNotFound } from "../api.js";
import { Categories } from "../components/categories.js";
import {
  ActionNote,
  Badge,
  ConfirmButton,
  DataTable,
  ErrorNote,
  Loading,
  NotFound,
  usePageTitle,
} from "../components/common.js";
import {
  bulkDeletePrompts,
  createPrompts,
  deletePrompts,
  editPrompt,
  getBrand,
  listMarkets,
  listPrompts,
} from "../endpoints.js";
import { formatClock, formatNumber } from "../format.js";
import { html } from "../html.js";
import { useLive } from "../live.js";
import { Link } from "../router.js";

/** @typedef {import("../types.js").Prompt} Prompt */

export const PROMPTS_PER_PAGE = 100;

/** @param {Prompt["tags"][number]} tag */
const tagKey = (tag) => `${tag.dimension ?? "tag"}: ${tag.name}`;

/**
 * A market's prompts with their tags (origin, type, category, …): searched and sorted by the API,
 * filtered by a tag on the page shown, edited inline (the id kept), deleted one by one or in bulk,
 * and added.
 * @param {{ orgId: string, brandId: string, geoTargetId: number, languageCode: string }} props
 */
export function MarketPage({ orgId, brandId, geoTargetId, languageCode }) {
  const [page, setPage] = useState(1);
  const [tag, setTag] = useState("");
  const [draft, setDraft] = useState("");
  const [search, setSearch] = useState("");
  const [sort, setSort] = useState("");
  const [editing, setEditing] = useState(/** @type {{ id: string, text: string } | null} */ (null));
  const [selected, setSelected] = useState(/** @type {string[]} */ ([]));
  const [note, setNote] = useState(/** @type {{ message: string, tone?: "ok" | "error" } | null} */ (null));
  const brand = useLive({ brand: () => getBrand(orgId, brandId) }, [orgId, brandId], { intervalMs: 60_000 });
  const live = useLive(
    {
      prompts: () =>
        listPrompts(orgId, brandId, {
          geoTargetId,
          languageCode,
          page,
          limit: PROMPTS_PER_PAGE,
          search: search.trim() || undefined,
          ...(sort ? { sort: sort.split(":")[0], order: sort.split(":")[1] } : {}),
        }),
      markets: () => listMarkets(orgId, brandId),
    },
    [orgId, brandId, geoTargetId, languageCode, page, search, sort],
  );
  const market = live.data.markets?.items.find(
    (candidate) => candidate.geoTargetId === geoTargetId && candidate.languageCode === languageCode,
  );
  const title = market
    ? `${market.country} · ${market.languageCode}`
    : `Market ${geoTargetId} · ${languageCode}`;
  usePageTitle(title);
  if (isNotFound(brand.errors.brand) || (live.data.markets && !market))
    return html`<${NotFound} what="market" />`;

  const prompts = live.data.prompts?.items ?? [];
  const tags = [...new Set(prompts.flatMap((prompt) => prompt.tags.map(tagKey)))].sort();
  const shown = tag
    ? prompts.filter((prompt) => prompt.tags.some((candidate) => tagKey(candidate) === tag))
    : prompts;
  const total = live.data.prompts?.total ?? 0;

  /** @param {Prompt} prompt */
  const remove = async (prompt) => {
    try {
      await deletePrompts(orgId, brandId, { geoTargetId, languageCode, ids: [prompt.id] });
      setNote({ message: "Prompt deleted." });
    } catch (error) {
      setNote({
        message: `The prompt was not deleted: ${error instanceof ApiError ? error.message : "unknown error"}`,
        tone: "error",
      });
    }
    await live.refresh();
  };

  /** Saves the inline edit: the text in place, the id kept. */
  const save = async () => {
    if (!editing) return;
    try {
      await editPrompt(orgId, brandId, editing.id, { geoTargetId, languageCode, text: editing.text });
      setNote({ message: "Prompt saved." });
      setEditing(null);
    } catch (error) {
      setNote({
        message: `The prompt was not saved: ${error instanceof ApiError ? error.message : "unknown error"}`,
        tone: "error",
      });
    }
    await live.refresh();
  };

  const removeSelected = async () => {
    try {
      await bulkDeletePrompts(orgId, brandId, [{ geoTargetId, languageCode, ids: selected }]);
      setNote({ message: `${selected.length} prompts deleted.` });
      setSelected([]);
    } catch (error) {
      setNote({
        message: `No prompt was deleted: ${error instanceof ApiError ? error.message : "unknown error"}`,
        tone: "error",
      });
    }
    await live.refresh();
  };

  /** @param {string} id */
  const toggle = (id) =>
    setSelected(selected.includes(id) ? selected.filter((other) => other !== id) : [...selected, id]);

  /** @param {SubmitEvent} event */
  const add = async (event) => {
    event.preventDefault();
    const texts = draft
      .split("\n")
      .map((line) => line.trim())
      .filter(Boolean);
    if (texts.length === 0) return;
    try {
      const result = await createPrompts(
        orgId,
        brandId,
        texts.map((text) => ({ text, geoTargetId, languageCode })),
      );
      const created = result.items.filter((item) => item.status === 201).length;
      const existed = result.items.filter((item) => item.status === 200).length;
      const failed = result.items.length - created - existed;
      setNote({
        message: `${created} created, ${existed} already existed${failed ? `, ${failed} failed` : ""}.`,
        tone: failed ? "error" : "ok",
      });
      setDraft("");
    } catch (error) {
      setNote({
        message: `No prompt was added: ${error instanceof ApiError ? error.message : "unknown error"}`,
        tone: "error",
      });
    }
    await live.refresh();
  };

  /** @type {import("../components/common.js").Column<Prompt>[]} */
  const columns = [
    {
      key: "select",
      header: "Select",
      cell: (prompt) =>
        html`<input type="checkbox" aria-label=${`Select “${prompt.text}”`} checked=${selected.includes(prompt.id)}
          onChange=${() => toggle(prompt.id)} />`,
    },
    {
      key: "text",
      header: "Prompt",
      className: "wide",
      cell: (prompt) =>
        editing?.id === prompt.id
          ? html`<input class="inline-edit" aria-label="Prompt text" value=${editing.text}
              onInput=${(/** @type {Event} */ e) => setEditing({ id: prompt.id, text: /** @type {HTMLInputElement} */ (e.currentTarget).value })} />
            <button type="button" onClick=${save}>Save</button>
            <button type="button" onClick=${() => setEditing(null)}>Cancel</button>`
          : prompt.text,
    },
    {
      key: "tags",
      header: "Tags",
      cell: (prompt) =>
        html`<ul class="tags">${prompt.tags.map((candidate) => html`<li key=${candidate.id}>${tagKey(candidate)}</li>`)}</ul>`,
    },
    {
      key: "draft",
      header: "State",
      cell: (prompt) => html`<${Badge} value=${prompt.isDraft ? "draft" : "published"} />`,
    },
    {
      key: "actions",
      header: "Actions",
      cell: (prompt) =>
        html`<button type="button" onClick=${() => setEditing({ id: prompt.id, text: prompt.text })}>Edit</button>
          <${ConfirmButton} label="Delete" danger question=${`Delete the prompt “${prompt.text}”?`} onConfirm=${() => remove(prompt)} />`,
    },
  ];

  return html`<section aria-labelledby="page-title">
    <p class="crumbs">
      <${Link} href=${`/console/orgs/${orgId}`}>Organisation<//> /
      <${Link} href=${`/console/orgs/${orgId}/brands/${brandId}`}>${brand.data.brand?.name ?? "brand"}<//> / market
    </p>
    <h1 id="page-title">${title}</h1>
    <p class="muted">
      ${market ? html`Publish status <${Badge} value=${market.publishStatus} /> · ${formatNumber(market.promptCount)} prompts · ` : null}
      updated ${formatClock(live.updatedAt)}
    </p>
    <${ActionNote} message=${note?.message ?? null} tone=${note?.tone} />
    <${ErrorNote} error=${live.errors.markets} what="load the market" />
    <div class="filters">
      <div class="field">
        <label for="prompt-search">Search</label>
        <input id="prompt-search" type="search" value=${search}
          onChange=${(/** @type {Event} */ e) => {
            setPage(1);
            setSearch(/** @type {HTMLInputElement} */ (e.currentTarget).value);
          }} />
      </div>
      <div class="field">
        <label for="prompt-sort">Sort</label>
        <select id="prompt-sort" value=${sort} onChange=${(/** @type {Event} */ e) => setSort(/** @type {HTMLSelectElement} */ (e.currentTarget).value)}>
          <option value="">as created</option>
          <option value="text:asc">text A–Z</option>
          <option value="text:desc">text Z–A</option>
          <option value="updatedAt:desc">last edited</option>
        </select>
      </div>
      ${
        selected.length > 0
          ? html`<${ConfirmButton} label=${`Delete selected (${selected.length})`} danger
            question=${`Delete ${selected.length} prompts?`} onConfirm=${removeSelected} />`
          : null
      }
      <div class="field">
        <label for="tag-filter">Filter by tag</label>
        <select id="tag-filter" value=${tag} onChange=${(/** @type {Event} */ e) => setTag(/** @type {HTMLSelectElement} */ (e.currentTarget).value)}>
          <option value="">all tags</option>
          ${tags.map((key) => html`<option value=${key}>${key}</option>`)}
        </select>
      </div>
    </div>
    <${ErrorNote} error=${live.errors.prompts} what="load the prompts" />
    ${
      live.data.prompts
        ? html`<${DataTable} caption="Prompts" columns=${columns} rows=${shown} rowKey=${(/** @type {Prompt} */ prompt) => prompt.id}
            empty=${tag ? "No prompt on this page has that tag." : "No prompts yet."} />
          <nav class="pager" aria-label="Prompt pages">
            <span>Page ${page} of ${Math.max(1, Math.ceil(total / PROMPTS_PER_PAGE))} (${formatNumber(total)} prompts)</span>
            ${page > 1 ? html`<button type="button" onClick=${() => setPage(page - 1)}>Previous</button>` : null}
            ${page * PROMPTS_PER_PAGE < total ? html`<button type="button" onClick=${() => setPage(page + 1)}>Next</button>` : null}
          </nav>`
        : live.loaded
          ? null
          : html`<${Loading} />`
    }
    <details class="create">
      <summary>Add prompts…</summary>
      <form class="panel" onSubmit=${add} aria-labelledby="add-prompts-title">
        <h3 id="add-prompts-title">Add prompts</h3>
        <label for="prompt-texts">One prompt per line</label>
        <textarea id="prompt-texts" rows="4" value=${draft}
          onInput=${(/** @type {Event} */ e) => setDraft(/** @type {HTMLTextAreaElement} */ (e.currentTarget).value)}></textarea>
        <button type="submit" class="button-primary">Add</button>
      </form>
    </details>
    <${Categories} orgId=${orgId} brandId=${brandId} geoTargetId=${geoTargetId} languageCode=${languageCode} />
  </section>`;
}
