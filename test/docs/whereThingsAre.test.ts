import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

import { describe, expect, it } from "vitest";

/**
 * The layer order of src/ is written once, in .dependency-cruiser.mjs (what `npm run lint`
 * enforces); README "Where things are" must list the same folders on the same layers.
 */
async function layers(): Promise<string[][]> {
  const config = (await import(pathToFileURL(path.resolve(".dependency-cruiser.mjs")).href)) as {
    LAYERS: string[][];
  };
  return config.LAYERS;
}

describe("README “Where things are”", () => {
  it("lists the folders of src/ on the layers the check enforces, from the ground up", async () => {
    const readme = readFileSync("README.md", "utf8");
    const section = readme.slice(
      readme.indexOf("## Where things are"),
      readme.indexOf("## Where the tests are"),
    );
    const documented: string[][] = [];
    for (const [, layer, folder] of section.matchAll(/^\|\s*(\d*)\s*\|\s*`src\/(\w+)\/`/gm)) {
      if (layer) documented.push([]);
      documented.at(-1)!.push(folder!);
    }
    expect(documented).toEqual(await layers());
  });

  it("places every folder of src/ on a layer", async () => {
    const folders = readdirSync("src", { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    const placed = (await layers()).flat();
    expect(folders.filter((folder) => !placed.includes(folder))).toEqual([]);
  });
});
