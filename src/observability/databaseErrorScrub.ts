/**
 * What a database error may say about the values of a query, taken out before it is logged
 * (docs/decisions/0038). Those values are user input, stored idempotent answers, sealed credential
 * bytes; the statement text (with its `$1` placeholders), the SQLSTATE, the constraint and the
 * table stay, since they are what a person debugging needs.
 *
 * - Drizzle's `DrizzleQueryError` carries `params` (an enumerable array) and repeats them in its
 *   message ("Failed query: …\nparams: …"), followed by its cause's message and stack;
 * - PostgreSQL's `detail` echoes a row's values ("Key (name)=(Acme) already exists.", "Failing
 *   row contains (…)");
 * - a data exception (SQLSTATE class 22) echoes the input it refused
 *   (`invalid input syntax for type uuid: "…"`), in its message and so in the stack.
 */

const REDACTED = "[redacted]";
const PARAMETER_FIELDS = ["params", "parameters", "values"];

/** "…\nparams: a,b" and everything after it (the cause's message, which may repeat them). */
function withoutParamsLine(text: string): string {
  return text.replace(/\nparams: [\s\S]*$/, `\nparams: ${REDACTED}`);
}

/**
 * `Key (a, b)=(x, y) …` → `Key (a, b)=([redacted]) …`, and `Failing row contains (…)` (a NOT NULL
 * or CHECK violation) → `Failing row contains ([redacted])`.
 */
function withoutKeyValues(text: string): string {
  return text
    .replace(/\)=\((?:[^()]|\([^()]*\))*\)/g, `)=(${REDACTED})`)
    .replace(/Failing row contains \((?:[^()]|\([^()]*\))*\)/g, `Failing row contains (${REDACTED})`);
}

/** Quoted input in a data exception's message: `…: "value"` → `…: "[redacted]"`. */
function withoutQuotedInput(text: string): string {
  return text.replace(/"(?:[^"\\]|\\.)*"/g, `"${REDACTED}"`);
}

function isDataException(code: unknown): boolean {
  return typeof code === "string" && code.startsWith("22");
}

/** Scrubs a serialized error (pino's `err` shape) in place and returns it. */
export function scrubDatabaseError(serialized: Record<string, unknown>): Record<string, unknown> {
  for (const field of PARAMETER_FIELDS) if (field in serialized) serialized[field] = REDACTED;
  const dataException = isDataException(serialized.code);
  for (const field of ["message", "stack"]) {
    const value = serialized[field];
    if (typeof value !== "string") continue;
    let text = withoutKeyValues(withoutParamsLine(value));
    if (dataException) text = withoutQuotedInput(text);
    serialized[field] = text;
  }
  if (typeof serialized.detail === "string") {
    serialized.detail = dataException ? REDACTED : withoutKeyValues(serialized.detail);
  }
  return serialized;
}
