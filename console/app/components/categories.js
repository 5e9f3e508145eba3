// @ts-check
import { useState } from "../../vendor/hooks.js";
import { ApiError } from "../api.js";
import { deleteCategory, listCategories, saveCategory } from "../endpoints.js";
import { html } from "../html.js";
import { useLive } from "../live.js";
import { ActionNote, ConfirmButton, ErrorNote } from "./common.js";

/** @typedef {{ id: string, name: string, parentId: string | null, depth: number, promptCount: number }} Category */

/**
 * A market's categories as a tree (spec/api.md §5): add one (top level or under another), rename
 * one, move one (to the top level or under another), delete one (refused while prompts use it,
 * unless they move to another category first: "Move its prompts to").
 * @param {{ orgId: string, brandId: string, geoTargetId: number, languageCode: string }} props
 */
export function Categories({ orgId, brandId, geoTargetId, languageCode }) {
  const live = useLive(
    { categories: () => listCategories(orgId, brandId, geoTargetId, languageCode) },
    [orgId, brandId, geoTargetId, languageCode],
    { intervalMs: 60_000 },
  );
  const [name, setName] = useState("");
  const [parent, setParent] = useState("");
  const [target, setTarget] = useState("");
  const [newName, setNewName] = useState("");
  const [moving, setMoving] = useState("");
  const [moveUnder, setMoveUnder] = useState("");
  const [deleting, setDeleting] = useState("");
  const [reassignTo, setReassignTo] = useState("");
  const [note, setNote] = useState(/** @type {{ message: string, tone?: "ok" | "error" } | null} */ (null));
  /** @type {Category[]} */
  const categories = live.data.categories?.items ?? [];

  /** @param {() => Promise<unknown>} action @param {string} done */
  const run = async (action, done) => {
    try {
      await action();
      setNote({ message: done });
    } catch (error) {
      setNote({
        message: `Not done: ${error instanceof ApiError ? error.message : "unknown error"}`,
        tone: "error",
      });
    }
    await live.refresh();
  };

  /** @param {string | null} parentId @returns {unknown} */
  const level = (parentId) => {
    const children = categories.filter((category) => category.parentId === parentId);
    if (children.length === 0) return null;
    return html`<ul class="category-tree">
      ${children.map(
        (category) => html`<li key=${category.id}>
          ${category.name} <span class="muted">(${category.promptCount} prompts)</span>
          <${ConfirmButton} label=${`Delete ${category.name}`} danger question=${`Delete the category “${category.name}”?`}
            onConfirm=${() => run(() => deleteCategory(orgId, brandId, geoTargetId, languageCode, category.id, undefined), "Category deleted.")} />
          ${level(category.id)}
        </li>`,
      )}
    </ul>`;
  };

  const options = categories.map(
    (category) =>
      html`<option value=${category.id}>${"· ".repeat(category.depth - 1)}${category.name}</option>`,
  );
  /** @param {Event} e */
  const value = (e) => /** @type {HTMLInputElement} */ (e.currentTarget).value;

  return html`<section class="panel" aria-labelledby="categories-title">
    <h2 id="categories-title">Categories</h2>
    <${ActionNote} message=${note?.message ?? null} tone=${note?.tone} />
    <${ErrorNote} error=${live.errors.categories} what="load the categories" />
    ${categories.length === 0 ? html`<p class="muted">No categories yet.</p>` : level(null)}
    <form onSubmit=${(/** @type {SubmitEvent} */ e) => {
      e.preventDefault();
      void run(
        () =>
          saveCategory(orgId, brandId, geoTargetId, languageCode, null, { name, parentId: parent || null }),
        "Category added.",
      );
      setName("");
    }}>
      <label for="category-name">New category</label>
      <input id="category-name" value=${name} onInput=${(/** @type {Event} */ e) => setName(value(e))} />
      <label for="category-parent">Under</label>
      <select id="category-parent" value=${parent} onChange=${(/** @type {Event} */ e) => setParent(value(e))}>
        <option value="">top level</option>
        ${options}
      </select>
      <button type="submit">Add category</button>
    </form>
    <form onSubmit=${(/** @type {SubmitEvent} */ e) => {
      e.preventDefault();
      if (target)
        void run(
          () => saveCategory(orgId, brandId, geoTargetId, languageCode, target, { name: newName }),
          "Category renamed.",
        );
      setNewName("");
    }}>
      <label for="category-target">Rename</label>
      <select id="category-target" value=${target} onChange=${(/** @type {Event} */ e) => setTarget(value(e))}>
        <option value="">choose a category</option>
        ${options}
      </select>
      <label for="category-new-name">to</label>
      <input id="category-new-name" value=${newName} onInput=${(/** @type {Event} */ e) => setNewName(value(e))} />
      <button type="submit">Rename</button>
    </form>
    <form onSubmit=${(/** @type {SubmitEvent} */ e) => {
      e.preventDefault();
      if (moving)
        void run(
          () =>
            saveCategory(orgId, brandId, geoTargetId, languageCode, moving, { parentId: moveUnder || null }),
          "Category moved.",
        );
    }}>
      <label for="category-move">Move</label>
      <select id="category-move" value=${moving} onChange=${(/** @type {Event} */ e) => setMoving(value(e))}>
        <option value="">choose a category</option>
        ${options}
      </select>
      <label for="category-move-under">under</label>
      <select id="category-move-under" value=${moveUnder} onChange=${(/** @type {Event} */ e) => setMoveUnder(value(e))}>
        <option value="">top level</option>
        ${options}
      </select>
      <button type="submit">Move</button>
    </form>
    <form onSubmit=${(/** @type {SubmitEvent} */ e) => e.preventDefault()}>
      <label for="category-delete">Delete</label>
      <select id="category-delete" value=${deleting} onChange=${(/** @type {Event} */ e) => setDeleting(value(e))}>
        <option value="">choose a category</option>
        ${options}
      </select>
      <label for="category-reassign">Move its prompts to</label>
      <select id="category-reassign" value=${reassignTo} onChange=${(/** @type {Event} */ e) => setReassignTo(value(e))}>
        <option value="">nowhere (refused while it has prompts)</option>
        ${categories
          .filter((category) => category.id !== deleting)
          .map(
            (category) =>
              html`<option value=${category.id}>${"· ".repeat(category.depth - 1)}${category.name}</option>`,
          )}
      </select>
      <${ConfirmButton} label="Delete category" danger disabled=${!deleting}
        question=${
          reassignTo
            ? "Delete the category? Its prompts move to the category chosen first."
            : "Delete the category? It is refused while prompts use it."
        }
        onConfirm=${() =>
          run(async () => {
            await deleteCategory(
              orgId,
              brandId,
              geoTargetId,
              languageCode,
              deleting,
              reassignTo || undefined,
            );
            setDeleting("");
            setReassignTo("");
          }, "Category deleted.")} />
    </form>
  </section>`;
}
