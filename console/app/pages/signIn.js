// @ts-check
import { useState } from "../../vendor/hooks.js";
import { api, ApiError } from "../api.js";
import { usePageTitle } from "../components/common.js";
import { html } from "../html.js";
import { clearToken, storeToken } from "../session.js";

/** Sentences for why the user is here (shown above the form). */
export const SIGN_IN_REASONS = {
  expired: "Your session ended: the token expired or was refused. Paste a fresh token to continue.",
  signedOut: "You signed out. The token was forgotten by this tab.",
  missing: "Sign in to continue.",
};

/**
 * Paste a bearer token; it is checked with one API call before the console opens. The form is
 * handled here only (the page's policy forbids native form submission): the token never travels
 * in a URL.
 * @param {{ reason: keyof typeof SIGN_IN_REASONS | null, onSignedIn: () => void }} props
 */
export function SignInPage({ reason, onSignedIn }) {
  usePageTitle("Sign in");
  const [token, setToken] = useState("");
  const [problem, setProblem] = useState(/** @type {string | null} */ (null));
  const [busy, setBusy] = useState(false);

  /** @param {SubmitEvent} event */
  const submit = async (event) => {
    event.preventDefault();
    const pasted = token.trim().replace(/^Bearer\s+/i, "");
    if (!pasted) {
      setProblem("Paste a token first.");
      return;
    }
    setBusy(true);
    setProblem(null);
    storeToken(pasted);
    try {
      await api("/v2/orgs");
      setToken("");
      onSignedIn();
    } catch (error) {
      clearToken();
      setProblem(
        error instanceof ApiError && error.status === 401
          ? "That token was not accepted: it is invalid or has expired."
          : "The server could not be reached to check the token. Try again.",
      );
    } finally {
      setBusy(false);
    }
  };

  return html`<section class="sign-in" aria-labelledby="page-title">
    <h1 id="page-title">Sign in to the Serenity console</h1>
    ${reason && !problem ? html`<p class="note" role="status">${SIGN_IN_REASONS[reason]}</p>` : null}
    ${problem ? html`<p class="note note-error" role="alert">${problem}</p>` : null}
    <form onSubmit=${submit} autocomplete="off">
      <label for="token">Bearer token</label>
      <input id="token" name="token" type="password" autocomplete="off" spellcheck="false" required
        value=${token} onInput=${(/** @type {InputEvent} */ event) => setToken(/** @type {HTMLInputElement} */ (event.currentTarget).value)} />
      <p class="hint">
        <code>npm start</code> prints a development token. For another user:
        <code>${"npm run serenity -- token --sub alice --org <orgId>"}</code>. The token stays in this tab
        only (sessionStorage) and is sent in the Authorization header.
      </p>
      <button type="submit" class="button-primary" disabled=${busy}>${busy ? "Checking…" : "Sign in"}</button>
    </form>
  </section>`;
}
