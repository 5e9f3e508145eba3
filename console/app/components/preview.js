// @ts-check
// Preview the prompts generation would write for a market, pick the ones to keep, and accept them:
// the preview writes nothing (spec/generation.md §8); accepting posts the chosen texts through the
// bulk prompt API, as any client would (docs/decisions/0017-console-generation.md).
import { useEffect, useRef, useState } from "../../vendor/hooks.js";
import { ApiError } from "../api.js";
import { createPrompts, previewPrompts } from "../endpoints.js";
import { summarySentence } from "../generation.js";
import { html } from "../html.js";
import { Badge, ConfirmButton } from "./common.js";

/** @typedef {import("../types.js").PromptPreview} PromptPreview */
/** @typedef {import("../types.js").Market} Market */

export const DEFAULT_PREVIEW_COUNT = 20;

/** @param {unknown} error */
function sentenceOf(error) {
  if (error instanceof ApiError)
    return `${error.message}${error.requestId ? ` (request ${error.requestId})` : ""}`;
  return "The request did not complete.";
}

/**
 * @param {{ orgId: string, brandId: string, market: Market, onClose: () => void, onAccepted: (message: string, tone?: "ok" | "error") => void }} props
 */
export function PromptPreviewPanel({ orgId, brandId, market, onClose, onAccepted }) {
  const [count, setCount] = useState(String(DEFAULT_PREVIEW_COUNT));
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState(/** @type {string | null} */ (null));
  const [preview, setPreview] = useState(/** @type {PromptPreview | null} */ (null));
  const [chosen, setChosen] = useState(/** @type {Set<number>} */ (new Set()));
  const heading = useRef(/** @type {HTMLHeadingElement | null} */ (null));
  const name = `${market.country} · ${market.languageCode}`;

  useEffect(() => heading.current?.focus(), [market.geoTargetId, market.languageCode]);

  /** @param {SubmitEvent} event */
  const generate = async (event) => {
    event.preventDefault();
    setBusy(true);
    setProblem(null);
    try {
      const answer = await previewPrompts(orgId, brandId, market.geoTargetId, market.languageCode, {
        count: Number(count),
      });
      setPreview(answer);
      setChosen(new Set(answer.prompts.map((_, index) => index)));
    } catch (error) {
      setProblem(sentenceOf(error));
    } finally {
      setBusy(false);
    }
  };

  const accept = async () => {
    if (!preview) return;
    const items = preview.prompts
      .filter((_, index) => chosen.has(index))
      .map((prompt) => ({
        text: prompt.text,
        geoTargetId: market.geoTargetId,
        languageCode: market.languageCode,
        category: prompt.category,
      }));
    try {
      const result = await createPrompts(orgId, brandId, items);
      const created = result.items.filter((item) => item.status === 201).length;
      const existed = result.items.filter((item) => item.status === 200).length;
      const failed = result.items.length - created - existed;
      onAccepted(
        `Accepted for ${name}: ${created} created, ${existed} already existed${failed ? `, ${failed} failed` : ""}.`,
        failed ? "error" : "ok",
      );
    } catch (error) {
      setProblem(`No prompt was written: ${sentenceOf(error)}`);
    }
  };

  /** @param {number} index */
  const toggle = (index) => {
    const next = new Set(chosen);
    if (next.has(index)) next.delete(index);
    else next.add(index);
    setChosen(next);
  };

  const all = preview !== null && chosen.size === preview.prompts.length;
  return html`<section class="panel preview" aria-labelledby="preview-title">
    <h3 id="preview-title" tabindex="-1" ref=${heading}>Preview generated prompts · ${name}</h3>
    <p class="hint">Generated from the market's seed topics and validated. Nothing is written and no quota is used until you accept.</p>
    <form class="field-row" onSubmit=${generate}>
      <div class="field">
        <label for="preview-count">How many prompts</label>
        <input id="preview-count" type="number" min="1" max="50" required value=${count}
          onInput=${(/** @type {Event} */ e) => setCount(/** @type {HTMLInputElement} */ (e.currentTarget).value)} />
      </div>
      <div class="actions">
        <button type="submit" class="button-primary" disabled=${busy}>${busy ? "Generating…" : "Generate preview"}</button>
        <button type="button" onClick=${onClose}>Close</button>
      </div>
    </form>
    ${problem ? html`<p class="note note-error" role="alert">${problem}</p>` : null}
    ${
      preview
        ? html`<p data-field="preview-summary" role="status">
              <${Badge} value=${preview.summary.verdict === "ship" ? "ready" : preview.summary.verdict}
                label=${preview.summary.verdict} />
              ${" "}${summarySentence(preview.summary)}
              ${preview.summary.verdict === "ship" ? null : html` Reason: ${preview.summary.reason}.`}
            </p>
            ${
              preview.prompts.length > 0
                ? html`<fieldset class="preview-prompts">
                      <legend>Prompts to accept (${chosen.size} of ${preview.prompts.length} chosen)</legend>
                      <ul>
                        ${preview.prompts.map(
                          (prompt, index) => html`<li key=${prompt.text} class="check">
                            <input id=${`preview-${index}`} type="checkbox" checked=${chosen.has(index)}
                              onChange=${() => toggle(index)} />
                            <label for=${`preview-${index}`}>
                              ${prompt.text}
                              <span class="small"> ${prompt.category} · ${prompt.type}${prompt.topic ? ` · ${prompt.topic}` : ""}</span>
                            </label>
                          </li>`,
                        )}
                      </ul>
                    </fieldset>
                    <div class="actions">
                      <button type="button" onClick=${() => setChosen(all ? new Set() : new Set(preview.prompts.map((_, index) => index)))}>
                        ${all ? "Choose none" : "Choose all"}
                      </button>
                      <${ConfirmButton} label=${`Accept ${chosen.size} prompts`} disabled=${chosen.size === 0}
                        confirmLabel="Write them"
                        question=${`Write ${chosen.size} prompts to ${name}? Each uses one prompt unit per tracked model of the pool, and the market is published.`}
                        onConfirm=${accept} />
                    </div>`
                : null
            }`
        : null
    }
  </section>`;
}
