import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";

import { describe, expect, it } from "vitest";

/*
 * README "Where the tests are" states how a newcomer finds a test by name; this holds it:
 * - a unit test mirrors its module: `test/unit/<path>/<x>.test.ts` (or `<x>.<aspect>.test.ts`, one
 *   file per aspect of a large module) tests `src/<path>/<x>.ts`; under `test/unit/console/` it
 *   tests `console/<path>/<x>.js`;
 * - an integration test lives in the folder of the feature it drives: `test/integration/<folder>/`
 *   is named after `src/<folder>/`, or is one of the folders the README names below.
 */

/** Integration folders that are not src/ folders, with what the README says they hold. */
const INTEGRATION_FOLDERS_BEYOND_SRC: Record<string, string> = {
  provisioning: "the asynchronous provisioning of a brand's sub-workspace",
};

function testFiles(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".test.ts"))
    .map((file) => file.split(path.sep).join("/"))
    .sort();
}

/** The module a unit test file mirrors. */
function mirroredModule(testFile: string): string {
  const dir = path.posix.dirname(testFile);
  const module = path.posix.basename(testFile, ".test.ts").split(".")[0]!;
  return dir.startsWith("console")
    ? path.posix.join(dir, `${module}.js`)
    : path.posix.join("src", dir === "." ? "" : dir, `${module}.ts`);
}

describe("tests a newcomer finds by name", () => {
  it("every unit test is named after the module it tests, at that module's path", () => {
    const orphans = testFiles("test/unit").filter((file) => !existsSync(mirroredModule(file)));
    expect(orphans).toEqual([]);
  });

  it("every integration folder is a feature of src/ or one the README names", () => {
    const sourceFolders = new Set(
      readdirSync("src", { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name),
    );
    const folders = readdirSync("test/integration", { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    const unnamed = folders.filter(
      (folder) => !sourceFolders.has(folder) && !(folder in INTEGRATION_FOLDERS_BEYOND_SRC),
    );
    expect(unnamed).toEqual([]);
    const readme = readFileSync("README.md", "utf8");
    for (const folder of Object.keys(INTEGRATION_FOLDERS_BEYOND_SRC)) {
      expect(readme).toContain(`test/integration/${folder}/`);
    }
  });
});
