/** The `type` tag of a prompt: branded when it names the brand or one of its aliases, case-insensitive. */
export type PromptType = "branded" | "non-branded";

export function promptType(text: string, brand: { name: string; aliases: readonly string[] }): PromptType {
  const haystack = text.toLocaleLowerCase("en");
  const names = [brand.name, ...brand.aliases].map((name) => name.trim().toLocaleLowerCase("en"));
  return names.some((name) => name.length > 0 && haystack.includes(name)) ? "branded" : "non-branded";
}
