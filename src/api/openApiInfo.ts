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
      "Every error response is an RFC 9457 problem (`application/problem+json`): `{type, title, status, detail, instance, code, requestId, errors?}`. `type` is `/errors/{code}`, the code's documentation on this server; `code` is one of these (`error` and `message` repeat `code` and `detail`, deprecated). A validation failure lists every problem in `errors`, each `{in, pointer, code, detail}` with an RFC 6901 JSON pointer. `Retry-After` comes exactly with the codes whose row says so. See docs/api-contract.md and ADR 0037.",
      "",
      "| code | status | when |",
      "|---|---|---|",
      rows,
    ].join("\n"),
  };
}
