import { describe, expect, it } from "vitest";

import {
  classifyAnswer,
  classifyTransportFailure,
  errorMessageOf,
  isJsonBody,
  isMeteredQuotaAnswer,
  statusOfTransportFailure,
} from "../../../src/gateway/classifyError.ts";
import type { GatewayErrorKind } from "../../../src/gateway/errors.ts";

const NGINX_405 =
  "<html>\r\n<head><title>405 Not Allowed</title></head>\r\n<body>\r\n<center><h1>405 Not Allowed</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n";

describe("classifyAnswer: the table of spec/gateway.md §5", () => {
  const rows: [string, number, string, GatewayErrorKind][] = [
    ["401 FastAPI body", 401, '{"detail":"Not authenticated"}', "unauthorized"],
    ["401 empty", 401, "", "unauthorized"],
    ["403 invalid access", 403, '{"message":"invalid access attempt"}', "forbidden"],
    ["404 JSON", 404, '{"message":"not found"}', "gone"],
    ["404 text/plain (live PE)", 404, "not found", "gone"],
    ["405 nginx HTML page", 405, NGINX_405, "meteredQuota"],
    ["405 any non-JSON text", 405, "405 Not Allowed", "meteredQuota"],
    ["405 a bare number is not a JSON body", 405, "405", "meteredQuota"],
    ["405 JSON method error", 405, '{"message":"Method Not Allowed"}', "methodNotAllowed"],
    ["405 JSON array", 405, "[]", "methodNotAllowed"],
    ["405 empty body", 405, "", "methodNotAllowed"],
    ["405 whitespace body", 405, "  \n", "methodNotAllowed"],
    ["409 text", 409, "conflict", "conflict"],
    [
      "422 insufficient units",
      422,
      '{"message":"insufficient available units in subscription"}',
      "poolExhausted",
    ],
    ["422 insufficient, text/plain", 422, "Insufficient available units", "poolExhausted"],
    ["422 insufficient under detail", 422, '{"detail":"insufficient available units"}', "poolExhausted"],
    ["422 workspace not ready", 422, '{"message":"workspace not ready"}', "workspaceNotReady"],
    ["422 not ready, odd case", 422, "Workspace NOT READY", "workspaceNotReady"],
    ["422 anything else", 422, '{"message":"title is required"}', "badRequest"],
    ["429", 429, "", "rateLimited"],
    ["500", 500, "internal", "unavailable"],
    ["502", 502, "<html>bad gateway</html>", "unavailable"],
    ["503", 503, "", "unavailable"],
    ["504", 504, "", "unavailable"],
    ["599", 599, "", "unavailable"],
    ["400 bad language", 400, '{"message":"invalid language"}', "badRequest"],
    ["402", 402, "", "badRequest"],
    ["410", 410, "", "badRequest"],
    ["413", 413, "", "badRequest"],
    ["418", 418, "", "badRequest"],
    ["301 redirect", 301, "", "unexpectedResponse"],
    ["304", 304, "", "unexpectedResponse"],
  ];
  it.each(rows)("%s → %s", (_name, status, body, kind) => {
    expect(classifyAnswer({ status, body })).toBe(kind);
  });

  it("classifies by body shape, so a 405 JSON body with surrounding whitespace is still JSON", () => {
    expect(classifyAnswer({ status: 405, body: '  {"message":"Method Not Allowed"}\n' })).toBe(
      "methodNotAllowed",
    );
  });

  it("treats a truncated JSON-looking 405 body as a string body (quota)", () => {
    expect(classifyAnswer({ status: 405, body: '{"message":' })).toBe("meteredQuota");
  });
});

describe("isMeteredQuotaAnswer", () => {
  it("is only ever true for a 405", () => {
    for (const status of [200, 400, 403, 404, 409, 422, 429, 500]) {
      expect(isMeteredQuotaAnswer({ status, body: NGINX_405 })).toBe(false);
    }
    expect(isMeteredQuotaAnswer({ status: 405, body: NGINX_405 })).toBe(true);
  });
});

describe("isJsonBody", () => {
  it.each([
    ["{}", true],
    ['{"a":1}', true],
    ["[1]", true],
    ["null", false],
    ["42", false],
    ['"text"', false],
    ["<html></html>", false],
    ["{broken", false],
    ["", false],
  ])("%j → %s", (body, expected) => {
    expect(isJsonBody(body)).toBe(expected);
  });
});

describe("errorMessageOf", () => {
  it("reads message, then detail, then error, else the raw text", () => {
    expect(errorMessageOf('{"message":"m","detail":"d"}')).toBe("m");
    expect(errorMessageOf('{"detail":"d"}')).toBe("d");
    expect(errorMessageOf('{"error":"e"}')).toBe("e");
    expect(errorMessageOf('{"message":3}')).toBe('{"message":3}');
    expect(errorMessageOf("plain words")).toBe("plain words");
  });
});

describe("transport failures", () => {
  it("a timeout is unavailable with status 504", () => {
    expect(classifyTransportFailure("timeout")).toBe("unavailable");
    expect(statusOfTransportFailure("timeout")).toBe(504);
  });
  it("a network failure is unavailable with status 0 (no answer)", () => {
    expect(classifyTransportFailure("network")).toBe("unavailable");
    expect(statusOfTransportFailure("network")).toBe(0);
  });
});
