import { request } from "undici";

import { type Clock, systemClock } from "../../domain/clock.ts";
import { GeneratorError } from "../generatorError.ts";

/**
 * The one HTTP exchange of the remote generators: POST a JSON body, read the whole answer as
 * text, with the generator timeout on the injected clock (so tests move time instead of waiting)
 * and the caller's abort signal. Never retried here: the generation job owns retries. Failures
 * are `GeneratorError`s: `aborted` (the caller's signal), `timeout`, or `transport`.
 */

export interface JsonPost {
  url: string;
  body: unknown;
  headers?: Record<string, string>;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  clock?: Clock;
}

export interface JsonAnswer {
  status: number;
  text: string;
}

class GeneratorTimeout extends Error {}

export async function postJson(post: JsonPost): Promise<JsonAnswer> {
  const clock = post.clock ?? systemClock;
  if (post.signal?.aborted) throw new GeneratorError("aborted", "The generation was aborted.");
  const exchange = new AbortController();
  const timer = new AbortController();
  const onCallerAbort = () => exchange.abort(post.signal?.reason);
  post.signal?.addEventListener("abort", onCallerAbort, { once: true });
  clock.sleep(post.timeoutMs, timer.signal).then(
    () => exchange.abort(new GeneratorTimeout()),
    () => {}, // the timer was cancelled: the exchange ended first
  );
  try {
    const response = await request(post.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", ...post.headers },
      body: JSON.stringify(post.body),
      signal: exchange.signal,
      // Our clock bounds the exchange; undici's own timers would fire on wall time.
      headersTimeout: 0,
      bodyTimeout: 0,
    });
    return { status: response.statusCode, text: await response.body.text() };
  } catch (cause) {
    if (post.signal?.aborted) throw new GeneratorError("aborted", "The generation was aborted.", { cause });
    if (exchange.signal.reason instanceof GeneratorTimeout) {
      throw new GeneratorError("timeout", `The generator did not answer within ${post.timeoutMs} ms.`, {
        cause,
      });
    }
    throw new GeneratorError("transport", "The generator could not be reached.", { cause });
  } finally {
    timer.abort();
    post.signal?.removeEventListener("abort", onCallerAbort);
  }
}
