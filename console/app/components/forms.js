// @ts-check
// The create forms: a brand (optionally with its first market) and a market of a brand. Both post
// to the public API; "in the background" maps to `async: true` (a job the pages then follow), and
// "generate prompts" to `generatePrompts: true` (a generation job when the server has it on).
import { useState } from "../../vendor/hooks.js";
import { ApiError } from "../api.js";
import { createBrand, createMarket } from "../endpoints.js";
import { html } from "../html.js";

/** A few common markets for the suggestion lists (any ISO country and language code is accepted). */
const COUNTRIES = ["US", "GB", "FR", "DE", "ES", "IT", "CA", "AU", "NL", "BR", "JP", "IN"];
const LANGUAGES = ["en", "fr", "de", "es", "it", "nl", "pt", "ja"];

/** @param {unknown} error */
function sentenceOf(error) {
  if (error instanceof ApiError)
    return `${error.message}${error.requestId ? ` (request ${error.requestId})` : ""}`;
  return "The request did not complete.";
}

/**
 * What became of "generate prompts": the job when one was enqueued (or reused), else why not. The
 * API leaves `promptGeneration` out when generation is off or not ready (spec/generation.md §2).
 * @param {boolean} asked
 * @param {import("../types.js").PromptGenerationHandle | undefined} handle
 */
export function generationSentence(asked, handle) {
  if (!asked) return "";
  if (handle)
    return handle.reused
      ? ` Prompt generation was already under way (job ${handle.jobId}).`
      : ` Prompt generation started (job ${handle.jobId}).`;
  return " Prompt generation did not start: it is off or not ready on this server (see its logs).";
}

/**
 * The "generate prompts" checkbox both forms share.
 * @param {{ id: string, checked: boolean, set: (v: boolean) => void }} props
 */
function GenerateCheck({ id, checked, set }) {
  return html`<div class="check">
    <input id=${id} type="checkbox" checked=${checked} onChange=${(/** @type {Event} */ e) => set(checkedOf(e))} />
    <label for=${id}>Generate monitoring prompts for it (a generation job)</label>
  </div>`;
}

/** @param {Event} event */
const valueOf = (event) => /** @type {HTMLInputElement} */ (event.currentTarget).value;
/** @param {Event} event */
const checkedOf = (event) => /** @type {HTMLInputElement} */ (event.currentTarget).checked;

/**
 * Country and language inputs shared by both forms.
 * @param {{ idPrefix: string, market: string, language: string, setMarket: (v: string) => void, setLanguage: (v: string) => void, required: boolean }} props
 */
function MarketFields({ idPrefix, market, language, setMarket, setLanguage, required }) {
  return html`<div class="field-row">
    <div class="field">
      <label for=${`${idPrefix}-market`}>Country (ISO code)</label>
      <input id=${`${idPrefix}-market`} list="countries" maxlength="2" pattern="[A-Za-z]{2}" required=${required}
        value=${market} onInput=${(/** @type {Event} */ e) => setMarket(valueOf(e))} />
    </div>
    <div class="field">
      <label for=${`${idPrefix}-language`}>Language code</label>
      <input id=${`${idPrefix}-language`} list="languages" maxlength="3" pattern="[A-Za-z]{2,3}" required=${required}
        value=${language} onInput=${(/** @type {Event} */ e) => setLanguage(valueOf(e))} />
    </div>
    <datalist id="countries">${COUNTRIES.map((code) => html`<option value=${code} />`)}</datalist>
    <datalist id="languages">${LANGUAGES.map((code) => html`<option value=${code} />`)}</datalist>
  </div>`;
}

/**
 * @param {{ orgId: string, onCreated: (brandId: string) => void }} props
 */
export function NewBrandForm({ orgId, onCreated }) {
  const [name, setName] = useState("");
  const [domain, setDomain] = useState("");
  const [market, setMarket] = useState("US");
  const [language, setLanguage] = useState("en");
  const [withMarket, setWithMarket] = useState(true);
  const [background, setBackground] = useState(true);
  const [generate, setGenerate] = useState(false);
  const [problem, setProblem] = useState(/** @type {string | null} */ (null));
  const [busy, setBusy] = useState(false);

  /** @param {SubmitEvent} event */
  const submit = async (event) => {
    event.preventDefault();
    setBusy(true);
    setProblem(null);
    try {
      const created = await createBrand(orgId, {
        name: name.trim(),
        ...(domain.trim() ? { domain: domain.trim() } : {}),
        ...(withMarket
          ? {
              semrushMarket: {
                market: market.trim(),
                languageCode: language.trim(),
                ...(generate ? { generatePrompts: true } : {}),
              },
              async: background,
            }
          : {}),
      });
      setName("");
      setDomain("");
      onCreated(created.id);
    } catch (error) {
      setProblem(sentenceOf(error));
    } finally {
      setBusy(false);
    }
  };

  return html`<form class="panel" onSubmit=${submit} aria-labelledby="new-brand-title">
    <h3 id="new-brand-title">New brand</h3>
    ${problem ? html`<p class="note note-error" role="alert">${problem}</p>` : null}
    <div class="field-row">
      <div class="field">
        <label for="brand-name">Name</label>
        <input id="brand-name" required maxlength="200" value=${name} onInput=${(/** @type {Event} */ e) => setName(valueOf(e))} />
      </div>
      <div class="field">
        <label for="brand-domain">Domain (optional)</label>
        <input id="brand-domain" maxlength="253" placeholder="example.com" value=${domain}
          onInput=${(/** @type {Event} */ e) => setDomain(valueOf(e))} />
      </div>
    </div>
    <div class="check">
      <input id="brand-with-market" type="checkbox" checked=${withMarket} onChange=${(/** @type {Event} */ e) => setWithMarket(checkedOf(e))} />
      <label for="brand-with-market">Give it a sub-workspace with a first market</label>
    </div>
    ${
      withMarket
        ? html`<${MarketFields} idPrefix="brand" market=${market} language=${language} setMarket=${setMarket}
            setLanguage=${setLanguage} required=${true} />
          <div class="check">
            <input id="brand-async" type="checkbox" checked=${background} onChange=${(/** @type {Event} */ e) => setBackground(checkedOf(e))} />
            <label for="brand-async">Provision in the background (a job; the page follows it)</label>
          </div>
          <${GenerateCheck} id="brand-generate" checked=${generate} set=${setGenerate} />`
        : null
    }
    <button type="submit" class="button-primary" disabled=${busy}>${busy ? "Creating…" : "Create brand"}</button>
  </form>`;
}

/**
 * @param {{ orgId: string, brandId: string, onDone: (message: string) => void }} props
 */
export function NewMarketForm({ orgId, brandId, onDone }) {
  const [market, setMarket] = useState("");
  const [language, setLanguage] = useState("");
  const [background, setBackground] = useState(false);
  const [generate, setGenerate] = useState(false);
  const [problem, setProblem] = useState(/** @type {string | null} */ (null));
  const [busy, setBusy] = useState(false);

  /** @param {SubmitEvent} event */
  const submit = async (event) => {
    event.preventDefault();
    setBusy(true);
    setProblem(null);
    try {
      const created = await createMarket(orgId, brandId, {
        market: market.trim(),
        languageCode: language.trim(),
        ...(background ? { async: true } : {}),
        ...(generate ? { generatePrompts: true } : {}),
      });
      setMarket("");
      setLanguage("");
      onDone(
        "jobId" in created
          ? `The market is being created in the background (job ${created.jobId}).${generate ? " Its prompt generation follows once it exists." : ""}`
          : `Market created.${generationSentence(generate, created.promptGeneration)}`,
      );
    } catch (error) {
      setProblem(sentenceOf(error));
    } finally {
      setBusy(false);
    }
  };

  return html`<form class="panel" onSubmit=${submit} aria-labelledby="new-market-title">
    <h3 id="new-market-title">Add a market</h3>
    ${problem ? html`<p class="note note-error" role="alert">${problem}</p>` : null}
    <${MarketFields} idPrefix="market" market=${market} language=${language} setMarket=${setMarket}
      setLanguage=${setLanguage} required=${true} />
    <div class="check">
      <input id="market-async" type="checkbox" checked=${background} onChange=${(/** @type {Event} */ e) => setBackground(checkedOf(e))} />
      <label for="market-async">Create in the background (a job)</label>
    </div>
    <${GenerateCheck} id="market-generate" checked=${generate} set=${setGenerate} />
    <button type="submit" class="button-primary" disabled=${busy}>${busy ? "Creating…" : "Add market"}</button>
  </form>`;
}
