/**
 * The opaque cursor of the org job list: the (createdAt, id) of the last job of a page, as
 * base64url JSON. Clients pass it back unchanged; anything that does not decode is `undefined`.
 */
export interface JobListPosition {
  createdAt: Date;
  id: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function encodeJobCursor(position: JobListPosition): string {
  return Buffer.from(JSON.stringify([position.createdAt.toISOString(), position.id])).toString("base64url");
}

export function decodeJobCursor(cursor: string): JobListPosition | undefined {
  try {
    const decoded: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (!Array.isArray(decoded) || decoded.length !== 2) return undefined;
    const [at, id] = decoded as unknown[];
    if (typeof at !== "string" || typeof id !== "string" || !UUID.test(id)) return undefined;
    const createdAt = new Date(at);
    if (Number.isNaN(createdAt.getTime()) || createdAt.toISOString() !== at) return undefined;
    return { createdAt, id };
  } catch {
    return undefined;
  }
}
