import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import fs from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import zlib from "node:zlib";

/**
 * The operator console's files, held in memory: our own (`console/` at the repository root) and
 * the few browser modules we use from installed npm packages (Preact, its hooks, htm, uPlot). No
 * bundler and no build step: at first use the files are read, the one bare import among them
 * (`preact/hooks` imports "preact") is pointed at our served copy, and each file is compressed
 * once (brotli and gzip). Every asset URL carries a content hash of the whole set, so browsers may
 * cache assets forever and a new release is a new URL (ADR 0011).
 */

export const CONSOLE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../console");
/** Where assets are served from: `/console/assets/<version>/<file>`. */
export const ASSETS_PREFIX = "/console/assets";

export interface ConsoleAsset {
  contentType: string;
  identity: Buffer;
  br: Buffer;
  gzip: Buffer;
}

export interface ConsoleBundle {
  /** A hash of every asset's path and bytes. */
  version: string;
  /** Keyed by the path under `/console/assets/<version>/`, e.g. `app/main.js`. */
  assets: ReadonlyMap<string, ConsoleAsset>;
  /** The page every console URL answers with (its asset URLs carry the version). */
  indexHtml: ConsoleAsset;
}

const CONTENT_TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".html": "text/html; charset=utf-8",
};

/** Served path → package and file inside it. */
const VENDOR_FILES: Record<string, { packageName: string; file: string }> = {
  "vendor/preact.js": { packageName: "preact", file: "dist/preact.mjs" },
  "vendor/hooks.js": { packageName: "preact", file: "hooks/dist/hooks.mjs" },
  "vendor/htm.js": { packageName: "htm", file: "dist/htm.mjs" },
  "vendor/uplot.js": { packageName: "uplot", file: "dist/uPlot.esm.js" },
  "vendor/uplot.css": { packageName: "uplot", file: "dist/uPlot.min.css" },
};

const require = createRequire(import.meta.url);

/** The installed package's folder (found from its entry point: some packages do not export package.json). */
function packageRoot(packageName: string): string {
  let dir = path.dirname(require.resolve(packageName));
  for (;;) {
    const manifest = path.join(dir, "package.json");
    if (
      existsSync(manifest) &&
      (JSON.parse(readFileSync(manifest, "utf8")) as { name?: string }).name === packageName
    )
      return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`Cannot find the installed package ${packageName}`);
    dir = parent;
  }
}

/** Vendor modules as the browser gets them: bare "preact" imports resolved, source-map comments dropped. */
function vendorSource(servedPath: string, source: string): string {
  let text = source.replace(/\n?\/\/# sourceMappingURL=\S+\s*$/, "\n");
  if (servedPath.endsWith(".js")) {
    text = text.replace(/(from\s*|import\s*\(\s*)(["'])preact\2/g, "$1$2./preact.js$2");
    // Statement-level imports and re-exports only (library code mentions "from" in comments and strings).
    const bare = /(?:^|[;}\n])\s*(?:import|export)\s*(?:[\w$*{}\s,]+?from\s*)?["'](?![./])([^"']+)["']/.exec(
      text,
    );
    if (bare) throw new Error(`${servedPath} still imports the bare module "${bare[1]}"`);
  }
  return text;
}

async function listFiles(dir: string, base = dir): Promise<string[]> {
  const entries = await fs.readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map(async (entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return listFiles(full, base);
      return [path.relative(base, full).split(path.sep).join("/")];
    }),
  );
  return nested.flat();
}

/** Browser files only: type declarations (`*.d.ts`) exist for the type-checker, and the page is a template. */
function isServed(relativePath: string): boolean {
  if (relativePath.endsWith(".d.ts") || relativePath === "index.html") return false;
  return path.extname(relativePath) in CONTENT_TYPES;
}

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

async function compressed(contentType: string, identity: Buffer): Promise<ConsoleAsset> {
  const [br, gz] = await Promise.all([
    brotli(identity, {
      params: {
        [zlib.constants.BROTLI_PARAM_QUALITY]: 11,
        [zlib.constants.BROTLI_PARAM_SIZE_HINT]: identity.length,
      },
    }),
    gzip(identity, { level: 9 }),
  ]);
  return { contentType, identity, br, gzip: gz };
}

async function readSources(root: string): Promise<Map<string, Buffer>> {
  const sources = new Map<string, Buffer>();
  for (const relativePath of (await listFiles(root)).filter(isServed).sort()) {
    sources.set(relativePath, await fs.readFile(path.join(root, relativePath)));
  }
  for (const [servedPath, { packageName, file }] of Object.entries(VENDOR_FILES)) {
    const source = await fs.readFile(path.join(packageRoot(packageName), file), "utf8");
    sources.set(servedPath, Buffer.from(vendorSource(servedPath, source)));
  }
  return sources;
}

function versionOf(sources: Map<string, Buffer>, template: string): string {
  const hash = createHash("sha256");
  hash.update(template);
  for (const [servedPath, bytes] of sources) hash.update(servedPath).update("\0").update(bytes).update("\0");
  return hash.digest("hex").slice(0, 16);
}

/**
 * The page: `{{assets}}` becomes the versioned asset prefix, and `{{modulepreload}}` one
 * `<link rel="modulepreload">` per module of the app and of the libraries every page needs, so the
 * browser fetches them in parallel instead of discovering them import by import (uPlot, needed by
 * one chart, is imported on demand).
 */
function renderIndex(template: string, base: string, sources: Map<string, Buffer>): string {
  const modules = [...sources.keys()].filter(
    (servedPath) => servedPath.startsWith("app/") && servedPath.endsWith(".js"),
  );
  const preload = [...modules, "vendor/preact.js", "vendor/hooks.js", "vendor/htm.js"]
    .map((servedPath) => `<link rel="modulepreload" href="${base}/${servedPath}">`)
    .join("\n    ");
  return template.replaceAll("{{assets}}", base).replace("{{modulepreload}}", preload);
}

export async function loadConsoleBundle(root: string = CONSOLE_ROOT): Promise<ConsoleBundle> {
  const template = await fs.readFile(path.join(root, "index.html"), "utf8");
  const sources = await readSources(root);
  const version = versionOf(sources, template);
  const assets = new Map<string, ConsoleAsset>();
  for (const [servedPath, bytes] of sources) {
    assets.set(servedPath, await compressed(CONTENT_TYPES[path.extname(servedPath)]!, bytes));
  }
  const indexHtml = await compressed(
    CONTENT_TYPES[".html"]!,
    Buffer.from(renderIndex(template, `${ASSETS_PREFIX}/${version}`, sources)),
  );
  return { version, assets, indexHtml };
}

const loaded = new Map<string, Promise<ConsoleBundle>>();

/** The bundle of `root`, loaded once per process on first use (apps that never serve it pay nothing). */
export function consoleBundle(root: string = CONSOLE_ROOT): Promise<ConsoleBundle> {
  let bundle = loaded.get(root);
  if (!bundle) {
    bundle = loadConsoleBundle(root);
    // A failed load is retried on the next request rather than cached.
    bundle.catch(() => loaded.delete(root));
    loaded.set(root, bundle);
  }
  return bundle;
}
