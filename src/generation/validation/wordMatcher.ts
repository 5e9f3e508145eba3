/**
 * Matches folded text (textFolding.ts) against word lists of a LanguageProfile: whole words or
 * phrases, a trailing `*` for any ending. Compiled once per list.
 */

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function alternative(entry: string): string {
  return entry.endsWith("*") ? `${escape(entry.slice(0, -1))}\\p{L}*` : escape(entry);
}

const compiled = new WeakMap<readonly string[], { anywhere: RegExp; atStart: RegExp } | null>();

function patterns(entries: readonly string[]) {
  let cached = compiled.get(entries);
  if (cached === undefined) {
    const body = entries.map(alternative).join("|");
    cached =
      body === ""
        ? null
        : {
            anywhere: new RegExp(`(?:^| )(?:${body})(?= |$)`, "u"),
            atStart: new RegExp(`^(?:${body})(?= |$)`, "u"),
          };
    compiled.set(entries, cached);
  }
  return cached;
}

/** True when any entry occurs in `folded` as whole words. */
export function containsAny(folded: string, entries: readonly string[]): boolean {
  return patterns(entries)?.anywhere.test(folded) ?? false;
}

/** True when `folded` begins with one of the entries. */
export function startsWithAny(folded: string, entries: readonly string[]): boolean {
  return patterns(entries)?.atStart.test(folded) ?? false;
}
