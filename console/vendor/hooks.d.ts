// Types of the served vendor/hooks.js (node_modules/preact/hooks/dist/hooks.mjs).
export * from "preact/hooks";
