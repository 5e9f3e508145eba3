// @ts-check
// A brand's identity (spec/api.md §5): its name, domain, primary URL, aliases, competitors and
// URLs, edited in one form that sends `PATCH …/brands/:brandId`. Every market then follows through
// one propagation job, which the page's job list shows. Lists are edited as text, one entry a line.
import { useState } from "../../vendor/hooks.js";
import { ApiError } from "../api.js";
import { updateBrand } from "../endpoints.js";
import { html } from "../html.js";
import { identityText, patchOf } from "../identity.js";

/** @typedef {import("../types.js").Brand} Brand */

/** @param {unknown} error */
function sentenceOf(error) {
  if (error instanceof ApiError)
    return `${error.message}${error.requestId ? ` (request ${error.requestId})` : ""}`;
  return "The request did not complete.";
}

/** @param {Event} event */
const valueOf = (event) => /** @type {HTMLInputElement} */ (event.currentTarget).value;

/**
 * @param {{ orgId: string, brand: Brand, onDone: (message: string) => void }} props
 */
export function IdentityForm({ orgId, brand, onDone }) {
  const [form, setForm] = useState(() => ({
    name: brand.name,
    domain: brand.domain ?? "",
    primaryUrl: brand.primaryUrl ?? "",
    ...identityText(brand),
  }));
  const [problem, setProblem] = useState(/** @type {string | null} */ (null));
  const [busy, setBusy] = useState(false);
  /** @param {keyof typeof form} key */
  const bind = (key) => (/** @type {Event} */ event) => setForm({ ...form, [key]: valueOf(event) });

  /** @param {SubmitEvent} event */
  const submit = async (event) => {
    event.preventDefault();
    const parsed = patchOf(form);
    if ("problem" in parsed) {
      setProblem(parsed.problem);
      return;
    }
    setBusy(true);
    setProblem(null);
    try {
      const updated = await updateBrand(orgId, brand.id, parsed.body);
      onDone(
        updated.job
          ? `Saved. Every market follows through the propagation job ${updated.job.id} (see the jobs below).`
          : "Saved. No market had to change.",
      );
    } catch (error) {
      setProblem(sentenceOf(error));
    } finally {
      setBusy(false);
    }
  };

  return html`<form class="panel" onSubmit=${submit} aria-labelledby="identity-title">
    <h3 id="identity-title">Edit identity</h3>
    ${problem ? html`<p class="note note-error" role="alert">${problem}</p>` : null}
    <div class="field-row">
      <div class="field">
        <label for="identity-name">Name</label>
        <input id="identity-name" required maxlength="200" value=${form.name} onInput=${bind("name")} />
      </div>
      <div class="field">
        <label for="identity-domain">Domain</label>
        <input id="identity-domain" value=${form.domain} onInput=${bind("domain")} />
      </div>
    </div>
    <div class="field">
      <label for="identity-primary-url">Primary URL</label>
      <input id="identity-primary-url" type="url" value=${form.primaryUrl} onInput=${bind("primaryUrl")} />
    </div>
    <div class="field">
      <label for="identity-aliases">Aliases (one a line)</label>
      <textarea id="identity-aliases" rows="3" value=${form.aliases} onInput=${bind("aliases")}></textarea>
    </div>
    <div class="field">
      <label for="identity-competitors">Competitors (one a line: name, domain[, alias; alias])</label>
      <textarea id="identity-competitors" rows="3" value=${form.competitors} onInput=${bind("competitors")}></textarea>
    </div>
    <div class="field">
      <label for="identity-urls">URLs (one a line: owned, social or earned, a space, the URL)</label>
      <textarea id="identity-urls" rows="3" value=${form.urls} onInput=${bind("urls")}></textarea>
    </div>
    <button type="submit" class="button-primary" disabled=${busy}>${busy ? "Saving…" : "Save identity"}</button>
  </form>`;
}
