/** The tokens listed in a SERENITY_UPSTREAM_TOKEN value: split on commas, trimmed, empties dropped. */
export function parseOperatorTokens(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((token) => token.trim())
    .filter((token) => token.length > 0);
}
