import { describe, expect, it } from "vitest";

import { bulkPromptsView } from "../../../../src/api/views/bulkPromptsView.ts";

describe("bulk result view", () => {
  it("201 only when every item was created, else 207 with registry statuses", () => {
    expect(bulkPromptsView([{ index: 0, outcome: "created", id: "1" }]).status).toBe(201);
    const mixed = bulkPromptsView([
      { index: 0, outcome: "created", id: "1" },
      { index: 1, outcome: "existed", id: "2" },
      { index: 2, outcome: "failed", code: "notFound", message: "m" },
      { index: 3, outcome: "failed", code: "quotaExceeded", message: "q" },
    ]);
    expect(mixed.status).toBe(207);
    expect(mixed.body.items.map((item) => item.status)).toEqual([201, 200, 404, 409]);
    expect(bulkPromptsView([{ index: 0, outcome: "existed", id: "1" }]).status).toBe(207);
  });
});
