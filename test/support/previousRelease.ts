import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";

/**
 * The release before this checkout, for rolling-upgrade tests (docs/decisions/0032): the code that
 * still runs beside the new code while a deploy rolls, on the new schema.
 *
 * It is `SERENITY_PREVIOUS_REF` when set (a named ref: the tag of the release in production), else
 * the main commit just before the newest committed migration arrived (the first-parent parent of
 * the commit that added it): the newest code that does not know the newest schema. When this
 * checkout carries a migration not committed yet, that is still the commit before the newest
 * committed one (never HEAD, whose code is this checkout's: the test would run it against itself).
 * `migrationsOf` lets a test check the release it got knows fewer migrations than this checkout.
 * Never a silent skip: without the git history to find it (not a checkout, a shallow clone) this
 * throws, saying how to get it.
 */

const MIGRATIONS = "src/db/migrations";

function git(args: string[]): string {
  return execFileSync("git", args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
}

export class PreviousReleaseUnavailable extends Error {
  constructor(reason: string) {
    super(
      `The previous release cannot be checked out: ${reason}. The rolling-upgrade test needs this ` +
        "checkout's git history (CI clones with full history; locally `git fetch --unshallow`), or " +
        "SERENITY_PREVIOUS_REF naming a commit, branch or tag that exists here.",
    );
    this.name = "PreviousReleaseUnavailable";
  }
}

export interface PreviousRelease {
  /** The commit checked out. */
  commit: string;
  /** How it was chosen, for the test's messages. */
  chosenBy: string;
}

export function resolvePreviousRelease(env: NodeJS.ProcessEnv = process.env): PreviousRelease {
  try {
    if (git(["rev-parse", "--is-inside-work-tree"]) !== "true") throw new Error("not inside a work tree");
  } catch {
    throw new PreviousReleaseUnavailable("this is not a git checkout");
  }
  const named = env.SERENITY_PREVIOUS_REF;
  if (named) {
    try {
      return {
        commit: git(["rev-parse", "--verify", `${named}^{commit}`]),
        chosenBy: `SERENITY_PREVIOUS_REF=${named}`,
      };
    } catch {
      throw new PreviousReleaseUnavailable(`SERENITY_PREVIOUS_REF=${named} names no commit here`);
    }
  }
  if (git(["rev-parse", "--is-shallow-repository"]) === "true") {
    throw new PreviousReleaseUnavailable("this is a shallow clone");
  }
  const committed = JSON.parse(git(["show", `HEAD:${MIGRATIONS}/meta/_journal.json`])) as {
    entries: { tag: string }[];
  };
  const newest = committed.entries.at(-1)!.tag;
  const added = git([
    "log",
    "--first-parent",
    "-1",
    "--format=%H",
    "--diff-filter=A",
    "--",
    `${MIGRATIONS}/${newest}.sql`,
  ]);
  if (!added) throw new PreviousReleaseUnavailable(`no commit on HEAD's first-parent line added ${newest}`);
  try {
    return {
      commit: git(["rev-parse", "--verify", `${added}^1`]),
      chosenBy: `the main commit before ${newest}`,
    };
  } catch {
    throw new PreviousReleaseUnavailable(
      `the parent of ${added.slice(0, 12)} (which added ${newest}) is missing`,
    );
  }
}

export interface CheckedOutRelease extends PreviousRelease {
  root: string;
  remove(): Promise<void>;
}

/**
 * Checks the release out into a temporary `git worktree` (detached), its node_modules a link to
 * this checkout's (as bench/allocation-guard-overhead.ts does): the old code with today's
 * dependencies, which is what a rolling deploy of an unchanged lockfile runs.
 */
export async function checkOutPreviousRelease(release: PreviousRelease): Promise<CheckedOutRelease> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), "serenity-previous-"));
  git(["worktree", "add", "--detach", root, release.commit]);
  await fs.symlink(path.resolve("node_modules"), path.join(root, "node_modules"));
  return {
    ...release,
    root,
    remove: async () => {
      git(["worktree", "remove", "--force", root]);
      await fs.rm(root, { recursive: true, force: true });
    },
  };
}

/** The migration tags a checkout (a worktree's root, or this one) knows. */
export function migrationsOf(root: string): string[] {
  const journal = JSON.parse(readFileSync(path.join(root, MIGRATIONS, "meta/_journal.json"), "utf8")) as {
    entries: { tag: string }[];
  };
  return journal.entries.map((entry) => entry.tag);
}
