// @ts-check
// A brand's identity as the console edits it: lists as text, one entry a line, and back to the
// `PATCH …/brands/:brandId` body (spec/api.md §5). Pure, so tested without a browser.

/** @typedef {import("./types.js").Brand} Brand */
/** @typedef {import("./types.js").BrandPatch} BrandPatch */

const URL_KINDS = /** @type {const} */ (["owned", "social", "earned"]);

/** @param {string} text */
const lines = (text) =>
  text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");

/** @param {Brand} brand the lists as the form's text */
export function identityText(brand) {
  return {
    aliases: brand.aliases.join("\n"),
    competitors: brand.competitors
      .map((c) => [c.name, c.domain, c.aliases.join("; ")].filter((part) => part !== "").join(", "))
      .join("\n"),
    urls: brand.urls.map((entry) => `${entry.kind} ${entry.url}`).join("\n"),
  };
}

/**
 * What the form starts from, as one string: the form starts over when the identity changes (a save,
 * another user's edit), never when only the brand's status moves while someone types.
 * @param {Brand} brand
 */
export function identityKey(brand) {
  const { name, domain, primaryUrl, aliases, competitors, urls } = brand;
  return JSON.stringify([name, domain, primaryUrl, aliases, competitors, urls]);
}

/**
 * The PATCH body of the form's text, or the first line it cannot read. A competitor line is
 * `name, domain[, alias; alias]`; a URL line is `kind url` (kind: owned, social or earned).
 * @param {{ name: string, domain: string, primaryUrl: string, aliases: string, competitors: string, urls: string }} form
 * @returns {{ body: BrandPatch } | { problem: string }}
 */
export function patchOf(form) {
  /** @type {{ name: string, domain: string, aliases: string[] }[]} */
  const competitors = [];
  for (const line of lines(form.competitors)) {
    const [name = "", domain = "", aliases = ""] = line.split(",").map((part) => part.trim());
    if (!name || !domain) return { problem: `Competitor “${line}”: write “name, domain”.` };
    competitors.push({
      name,
      domain,
      aliases: aliases
        .split(";")
        .map((a) => a.trim())
        .filter(Boolean),
    });
  }
  /** @type {{ url: string, kind: "owned" | "social" | "earned" }[]} */
  const urls = [];
  for (const line of lines(form.urls)) {
    const [kind = "", url = "", ...rest] = line.split(/\s+/);
    const known = URL_KINDS.find((candidate) => candidate === kind);
    if (!known || !url || rest.length > 0)
      return { problem: `URL “${line}”: write the kind (owned, social or earned), a space, then the URL.` };
    urls.push({ url, kind: known });
  }
  return {
    body: {
      name: form.name.trim(),
      domain: form.domain.trim() || null,
      primaryUrl: form.primaryUrl.trim() || null,
      aliases: lines(form.aliases),
      competitors,
      urls,
    },
  };
}
