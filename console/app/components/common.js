// @ts-check
import { useEffect, useRef, useState } from "../../vendor/hooks.js";
import { ApiError } from "../api.js";
import { html } from "../html.js";

/**
 * A state as a word in a pill (never colour alone: the word is the information).
 * @param {{ value: string | null | undefined, label?: string }} props
 */
export function Badge({ value, label }) {
  const text = label ?? value ?? "none";
  const tone = (value ?? "none").toLowerCase().replace(/[^a-z0-9]+/g, "-");
  return html`<span class=${`badge badge-${tone}`}>${text}</span>`;
}

/**
 * What went wrong, as the API said it (its generic sentence and the request id to look up in logs).
 * @param {{ error: unknown, what?: string }} props
 */
export function ErrorNote({ error, what }) {
  if (!error) return null;
  const message = error instanceof ApiError ? error.message : "The request did not complete.";
  const requestId = error instanceof ApiError && error.requestId ? ` (request ${error.requestId})` : "";
  return html`<p class="note note-error" role="alert">
    ${what ? `Could not ${what}: ` : ""}${message}${requestId}
  </p>`;
}

/** @param {{ children?: any }} props */
export function Loading({ children }) {
  return html`<p class="muted" role="status">${children ?? "Loading…"}</p>`;
}

/**
 * The page for anything the API answers 404 for: missing, or not yours (the API does not say which).
 * @param {{ what: string }} props
 */
export function NotFound({ what }) {
  return html`<section aria-labelledby="page-title">
    <h1 id="page-title">Not found</h1>
    <p>This ${what} does not exist, or your token does not give access to it.</p>
    <p><a href="/console/orgs">Back to the organisations</a></p>
  </section>`;
}

/**
 * A button that asks first, in a modal dialog (focus stays inside; Escape cancels).
 * @param {{ label: string, question: string, confirmLabel?: string, danger?: boolean, onConfirm: () => Promise<void> | void, disabled?: boolean }} props
 */
export function ConfirmButton({ label, question, confirmLabel, danger, onConfirm, disabled }) {
  const dialog = useRef(/** @type {HTMLDialogElement | null} */ (null));
  const [busy, setBusy] = useState(false);
  const confirm = async () => {
    setBusy(true);
    try {
      await onConfirm();
    } finally {
      setBusy(false);
      dialog.current?.close();
    }
  };
  return html`<span class="confirm">
    <button type="button" class=${danger ? "button-danger" : ""} disabled=${disabled || busy}
      onClick=${() => dialog.current?.showModal()}>${label}</button>
    <dialog ref=${dialog} aria-label=${label}>
      <p>${question}</p>
      <div class="actions">
        <button type="button" class=${danger ? "button-danger" : "button-primary"} disabled=${busy}
          onClick=${confirm}>${confirmLabel ?? label}</button>
        <button type="button" disabled=${busy} onClick=${() => dialog.current?.close()}>Cancel</button>
      </div>
    </dialog>
  </span>`;
}

/**
 * @template Row
 * @typedef {{ key: string, header: string, cell: (row: Row) => any, className?: string }} Column
 */

/**
 * A table from a list of columns (so a page adds a column by adding one entry), scrolling inside
 * its own box on a narrow screen instead of widening the page.
 * @template Row
 * @param {{ caption: string, columns: Column<Row>[], rows: Row[], rowKey: (row: Row) => string, rowClass?: (row: Row) => string, empty?: string }} props
 */
export function DataTable({ caption, columns, rows, rowKey, rowClass, empty }) {
  if (rows.length === 0) return html`<p class="muted">${empty ?? "Nothing yet."}</p>`;
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label=${caption}>
    <table>
      <caption class="visually-hidden">${caption}</caption>
      <thead>
        <tr>${columns.map((column) => html`<th scope="col" class=${column.className ?? ""}>${column.header}</th>`)}</tr>
      </thead>
      <tbody>
        ${rows.map(
          (row) => html`<tr key=${rowKey(row)} class=${rowClass?.(row) ?? ""}>
            ${columns.map((column) => html`<td class=${column.className ?? ""}>${column.cell(row)}</td>`)}
          </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

/**
 * Sets the document title and moves focus to the page heading after a navigation (so a screen
 * reader announces the new page).
 * @param {string} title
 */
export function usePageTitle(title) {
  useEffect(() => {
    document.title = `${title} · Serenity console`;
  }, [title]);
}

/**
 * A message after an action (created, deactivated, …), announced politely.
 * @param {{ message: string | null, tone?: "ok" | "error" }} props
 */
export function ActionNote({ message, tone }) {
  if (!message) return null;
  return html`<p class=${`note ${tone === "error" ? "note-error" : "note-ok"}`} role="status">${message}</p>`;
}
