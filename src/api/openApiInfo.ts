import { ERROR_REGISTRY } from "../domain/errors.ts";

/** The OpenAPI `info` block; its description documents the whole error registry. */
export function openApiInfo() {
  const rows = Object.entries(ERROR_REGISTRY)
    .map(([code, entry]) => `| \`${code}\` | ${entry.status} | ${entry.when} |`)
    .join("\n");
  return {
    title: "Serenity API",
    version: "2.0.0",
    description: [
      "Multi-tenant control plane for AI-visibility monitoring on Semrush enterprise AI workspaces.",
      "",
      "Every error response is `{error, message, requestId}`; `error` is one of these codes:",
      "",
      "| code | status | when |",
      "|---|---|---|",
      rows,
    ].join("\n"),
  };
}
