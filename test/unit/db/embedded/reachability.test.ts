import { describe, expect, it } from "vitest";

import { postgresMayEnter } from "../../../../src/db/embedded/reachability.ts";

const user = { name: "postgres" as const, uid: 101, gid: 104 };

describe("postgresMayEnter", () => {
  it("reads the owner's bits when postgres owns the directory, not the others'", () => {
    expect(postgresMayEnter({ uid: 101, gid: 0, mode: 0o700 }, user)).toBe(true);
    expect(postgresMayEnter({ uid: 101, gid: 0, mode: 0o071 }, user)).toBe(false);
  });

  it("reads the group's bits when the directory is postgres's group's", () => {
    expect(postgresMayEnter({ uid: 0, gid: 104, mode: 0o710 }, user)).toBe(true);
    expect(postgresMayEnter({ uid: 0, gid: 104, mode: 0o701 }, user)).toBe(false);
  });

  it("reads the others' bits otherwise: search (x) is enough, read is not", () => {
    expect(postgresMayEnter({ uid: 0, gid: 0, mode: 0o711 }, user)).toBe(true);
    expect(postgresMayEnter({ uid: 0, gid: 0, mode: 0o704 }, user)).toBe(false);
    expect(postgresMayEnter({ uid: 0, gid: 0, mode: 0o700 }, user)).toBe(false);
  });
});
