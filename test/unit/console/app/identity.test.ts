import { describe, expect, it } from "vitest";

import { identityKey, identityText, patchOf } from "../../../../console/app/identity.js";
import type { Brand } from "../../../../console/app/types.js";

/** The console's identity form, text to PATCH body and back (spec/api.md §5): pure, so tested here. */

const brand = {
  name: "Lumiere",
  domain: "lumiere.example",
  primaryUrl: "https://lumiere.example/",
  aliases: ["Lumière", "LMR"],
  competitors: [
    { name: "Eclat", domain: "eclat.example", aliases: ["Éclat"] },
    { name: "Nova", domain: "nova.example", aliases: [] },
  ],
  urls: [
    { url: "https://lumiere.example/", kind: "owned" },
    { url: "https://social.example/lumiere", kind: "social" },
  ],
} as unknown as Brand;

const formOf = (text: ReturnType<typeof identityText>) => ({
  name: brand.name,
  domain: brand.domain ?? "",
  primaryUrl: brand.primaryUrl ?? "",
  ...text,
});

describe("the identity form", () => {
  it("reads back exactly what it wrote: the PATCH of an unedited form is the brand's identity", () => {
    const parsed = patchOf(formOf(identityText(brand)));
    expect(parsed).toEqual({
      body: {
        name: "Lumiere",
        domain: "lumiere.example",
        primaryUrl: "https://lumiere.example/",
        aliases: ["Lumière", "LMR"],
        competitors: brand.competitors,
        urls: brand.urls,
      },
    });
  });

  it("blank lines and spaces are ignored; an empty domain or URL field clears it", () => {
    const parsed = patchOf({
      name: "  Lumiere ",
      domain: " ",
      primaryUrl: "",
      aliases: "\n  LMR  \n\n",
      competitors: " Nova ,  nova.example \n",
      urls: "earned   https://press.example/a\n",
    });
    expect(parsed).toEqual({
      body: {
        name: "Lumiere",
        domain: null,
        primaryUrl: null,
        aliases: ["LMR"],
        competitors: [{ name: "Nova", domain: "nova.example", aliases: [] }],
        urls: [{ url: "https://press.example/a", kind: "earned" }],
      },
    });
  });

  it("names the first line it cannot read instead of sending it", () => {
    const base = formOf({ aliases: "", competitors: "", urls: "" });
    expect(patchOf({ ...base, competitors: "Nova" })).toEqual({
      problem: "Competitor “Nova”: write “name, domain”.",
    });
    expect(patchOf({ ...base, urls: "press https://press.example/" })).toMatchObject({
      problem: expect.stringContaining("URL “press https://press.example/”"),
    });
    expect(patchOf({ ...base, urls: "owned" })).toHaveProperty("problem");
  });

  it("starts over when the identity changes, not when anything else does", () => {
    const moved = { ...brand, status: "pending", updatedAt: "2026-12-05T00:00:00.000Z" } as Brand;
    expect(identityKey(moved)).toBe(identityKey(brand));
    expect(identityKey({ ...brand, aliases: ["LMR"] })).not.toBe(identityKey(brand));
  });
});
