// @ts-check
// The console's only way to the server: the public, documented API (docs/openapi.json), with the
// token in the Authorization header. A 401 anywhere ends the session (back to sign-in).
import { readToken } from "./session.js";

export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {string} code
   * @param {string} message
   * @param {string | undefined} requestId
   */
  constructor(status, code, message, requestId) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.requestId = requestId;
  }
}

/** @type {(reason: "expired" | "missing") => void} */
let sessionEnded = () => {};

/** @param {(reason: "expired" | "missing") => void} handler */
export function onSessionEnded(handler) {
  sessionEnded = handler;
}

/**
 * @param {string} path
 * @param {Record<string, string | number | boolean | undefined | null>} [query]
 */
export function urlOf(path, query = {}) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== "") params.set(key, String(value));
  }
  const search = params.toString();
  return search ? `${path}?${search}` : path;
}

/**
 * One API call. Resolves with the parsed JSON (null for 204); rejects with an ApiError carrying
 * the registry code, the server's generic sentence and the request id.
 * @template T
 * @param {string} path
 * @param {{ method?: string, body?: unknown, query?: Record<string, string | number | boolean | undefined | null> }} [options]
 * @returns {Promise<T>}
 */
export async function api(path, options = {}) {
  const token = readToken();
  if (!token) {
    sessionEnded("missing");
    throw new ApiError(401, "authenticationRequired", "Sign in to continue.", undefined);
  }
  /** @type {Record<string, string>} */
  const headers = { accept: "application/json", authorization: `Bearer ${token}` };
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(urlOf(path, options.query), {
    method: options.method ?? "GET",
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    cache: "no-store",
    credentials: "omit",
  });
  if (response.status === 204) return /** @type {T} */ (null);
  /** @type {any} */
  const payload = await response.json().catch(() => null);
  if (response.status === 401) {
    sessionEnded("expired");
    throw new ApiError(401, "authenticationRequired", "Your session ended.", payload?.requestId);
  }
  if (!response.ok) {
    throw new ApiError(
      response.status,
      typeof payload?.code === "string" ? payload.code : "unknown",
      typeof payload?.detail === "string" ? payload.detail : `The server answered ${response.status}.`,
      typeof payload?.requestId === "string" ? payload.requestId : undefined,
    );
  }
  return /** @type {T} */ (payload);
}

/** @param {unknown} error */
export function isNotFound(error) {
  return error instanceof ApiError && error.status === 404;
}
