import { describe, expect, it } from "vitest";

import { operatorBearerFor } from "../../../src/domain/operatorTokens.ts";

const orgIds = Array.from(
  { length: 3000 },
  (_, index) => `00000000-0000-4000-8000-${String(index).padStart(12, "0")}`,
);

describe("the operator's tokens", () => {
  it("one token (or none) serves every org", () => {
    expect(operatorBearerFor(undefined, orgIds[0]!)).toBeUndefined();
    expect(operatorBearerFor([], orgIds[0]!)).toBeUndefined();
    expect(operatorBearerFor("solo", orgIds[0]!)).toBe("solo");
    expect(new Set(orgIds.map((id) => operatorBearerFor(["solo"], id)))).toEqual(new Set(["solo"]));
  });

  it("several share the orgs about evenly, each org always on the same one", () => {
    const tokens = ["a", "b", "c"];
    const counts = new Map<string, number>();
    for (const id of orgIds) {
      const token = operatorBearerFor(tokens, id)!;
      expect(operatorBearerFor([...tokens], id)).toBe(token);
      counts.set(token, (counts.get(token) ?? 0) + 1);
    }
    expect([...counts.keys()].sort()).toEqual(tokens);
    for (const count of counts.values()) {
      expect(count).toBeGreaterThan(900);
      expect(count).toBeLessThan(1100);
    }
  });
});
