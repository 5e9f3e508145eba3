import js from "@eslint/js";
import simpleImportSort from "eslint-plugin-simple-import-sort";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["node_modules/", ".serenity/", "src/db/migrations/", "coverage/", ".test-results/", "docs/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    plugins: { "simple-import-sort": simpleImportSort },
    rules: {
      "simple-import-sort/imports": "error",
      "simple-import-sort/exports": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
    },
  },
  {
    files: ["**/*.mjs", "**/*.js"],
    languageOptions: { globals: { process: "readonly", console: "readonly", URL: "readonly" } },
  },
  {
    // The operator console runs in the browser; `tsc` checks its globals (// @ts-check, lib DOM).
    files: ["console/**/*.js"],
    rules: { "no-undef": "off" },
  },
  {
    // The DOM library is in the type-checker for the console only: server code must not use it.
    files: ["src/**/*.ts"],
    rules: {
      "no-restricted-globals": [
        "error",
        "window",
        "document",
        "sessionStorage",
        "localStorage",
        "location",
        "history",
      ],
    },
  },
);
