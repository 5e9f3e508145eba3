import fs from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";

import { build } from "esbuild";

/**
 * The `serenity` CLI as one ES module, built once per test run for the processes tests spawn.
 *
 * `bin/serenity.mjs` loads the TypeScript sources through tsx, which resolves and transforms some
 * three hundred files at every start (about 3 s on an idle 2-core machine, 5 s or more under load);
 * the bundle starts in about 1 s. It is the same source: packages stay external (resolved from this
 * checkout's node_modules, as under tsx), and every `import.meta.url` (`.dirname`, `.filename`) is
 * replaced by that of the source file it was written in, so paths built from it (the migrations
 * folder, the console's files, `createRequire`) resolve exactly as they do under tsx.
 *
 * `outDir` must sit inside the checkout (node_modules is found from the bundle's location).
 */
export async function buildCliBundle(root: string, outDir: string): Promise<string> {
  const outfile = path.join(outDir, "serenity.mjs");
  const sourceRoot = path.join(root, "src") + path.sep;
  await build({
    entryPoints: [path.join(root, "src/cli/main.ts")],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    logLevel: "error",
    plugins: [
      {
        name: "source-file-urls",
        setup(builder) {
          builder.onLoad({ filter: /\.ts$/ }, async ({ path: file }) => {
            const text = await fs.readFile(file, "utf8");
            if (!file.startsWith(sourceRoot)) return { contents: text, loader: "ts" };
            const contents = text
              .replaceAll("import.meta.url", JSON.stringify(pathToFileURL(file).href))
              .replaceAll("import.meta.dirname", JSON.stringify(path.dirname(file)))
              .replaceAll("import.meta.filename", JSON.stringify(file));
            return { contents, loader: "ts" };
          });
        },
      },
    ],
  });
  return outfile;
}
