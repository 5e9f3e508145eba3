// Types of the served vendor/preact.js (node_modules/preact/dist/preact.mjs).
export * from "preact";
