/**
 * Maps `items` through `work` with at most `limit` calls in flight, keeping order. Upstream reads
 * fan out this way so one request never opens an unbounded number of gateway connections.
 */
export async function boundedMap<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
