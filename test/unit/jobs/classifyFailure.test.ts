import { describe, expect, it } from "vitest";

import { classifyJobFailure } from "../../../src/jobs/classifyFailure.ts";
import { JobError, needsReauth } from "../../../src/jobs/jobError.ts";
import { JOB_ERROR_MESSAGES } from "../../../src/jobs/jobErrorMessages.ts";

/** The job registry's sentences plus one a handler registered (what `registry.messageFor` answers). */
const messages: Record<string, string> = { ...JOB_ERROR_MESSAGES, OWN_CODE: "Own sentence." };
const messageFor = (code: string) => messages[code];

describe("classifyJobFailure", () => {
  it("keeps a JobError's code, retryability and chosen sentence", () => {
    expect(
      classifyJobFailure(new JobError("X", { retryable: true, message: "Chosen." }), messageFor),
    ).toEqual({
      code: "X",
      message: "Chosen.",
      retryable: true,
    });
    expect(classifyJobFailure(new JobError("OWN_CODE"), messageFor)).toEqual({
      code: "OWN_CODE",
      message: "Own sentence.",
      retryable: false,
    });
    expect(classifyJobFailure(needsReauth(), messageFor).code).toBe("NEEDS_REAUTH");
  });

  it("never stores an exception's own text", () => {
    const failure = classifyJobFailure(new Error("secret detail"), messageFor);
    expect(failure).toEqual({ code: "JOB_FAILED", message: "The job failed.", retryable: false });
    expect(classifyJobFailure("a string", messageFor).message).toBe("The job failed.");
    expect(classifyJobFailure(null, messageFor).code).toBe("JOB_FAILED");
  });

  it("uses a well-formed `code` and `retryable: true` of any error, with the API registry's sentence", () => {
    const upstream = Object.assign(new Error("raw body"), { code: "workspaceBusy", retryable: true });
    expect(classifyJobFailure(upstream, messageFor)).toEqual({
      code: "workspaceBusy",
      message: "The workspace is busy; retry shortly.",
      retryable: true,
    });
    const weird = Object.assign(new Error("x"), { code: "has spaces and {json}" });
    expect(classifyJobFailure(weird, messageFor).code).toBe("JOB_FAILED");
  });
});
