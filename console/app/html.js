// @ts-check
// Preact with htm's tagged templates: components without JSX, so the browser runs the files as written.
import htm from "../vendor/htm.js";
import { h } from "../vendor/preact.js";

export const html = htm.bind(h);
