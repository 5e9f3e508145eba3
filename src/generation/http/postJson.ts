import { request } from "undici";

import { type Clock, systemClock } from "../../domain/clock.ts";
import { GeneratorError } from "../generatorError.ts";

/**
 * The one HTTP exchange of the remote generators: POST a JSON body, read the answer as text (at
 * most MAX_GENERATOR_ANSWER_BYTES), with the generator timeout on the injected clock (so tests move time instead of waiting)
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

/**
 * The most a generator's answer may hold (issue 39, item 6): 100 prompts of 1,000 characters with
 * their metadata are far under it; a larger answer is cut off, never buffered whole, and fails the
 * call as `unparseable` (not the contract's shape, not retried).
 */
export const MAX_GENERATOR_ANSWER_BYTES = 2 * 1024 * 1024;

class AnswerTooLarge extends Error {}

async function boundedText(
  body: AsyncIterable<Buffer | Uint8Array>,
  exchange: AbortController,
): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_GENERATOR_ANSWER_BYTES) {
      exchange.abort(new AnswerTooLarge());
      throw new AnswerTooLarge();
    }
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks).toString("utf8");
}

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
    return { status: response.statusCode, text: await boundedText(response.body, exchange) };
  } catch (cause) {
    if (cause instanceof AnswerTooLarge || exchange.signal.reason instanceof AnswerTooLarge) {
      throw new GeneratorError(
        "unparseable",
        `The generator's answer exceeded ${MAX_GENERATOR_ANSWER_BYTES} bytes.`,
        { cause },
      );
    }
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
