// @ts-check
// The console's entry point (loaded by /console's page as a module; no build step).
import { render } from "../vendor/preact.js";
import { App } from "./app.js";
import { html } from "./html.js";

const root = document.getElementById("app");
if (root) render(html`<${App} />`, root);
