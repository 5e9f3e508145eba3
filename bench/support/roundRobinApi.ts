/** One answer of a bench's API call: status 0 when the request never got an answer. */
export interface ApiAnswer {
  status: number;
  text: string;
  ms: number;
}

export type RoundRobinCall = (
  method: string,
  url: string,
  token: string,
  body?: unknown,
) => Promise<ApiAnswer>;

/**
 * A caller that sends each request to the next of `apis` in turn (the benches' several `serve`
 * processes behind no balancer), timing it; a failed connection answers status 0, never throws.
 */
export function roundRobinApi(apis: readonly string[]): RoundRobinCall {
  let turn = 0;
  return async (method, url, token, body) => {
    const api = apis[turn++ % apis.length]!;
    const started = performance.now();
    try {
      const response = await fetch(`${api}${url}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, text, ms: performance.now() - started };
    } catch (error) {
      return { status: 0, text: String(error), ms: performance.now() - started };
    }
  };
}
