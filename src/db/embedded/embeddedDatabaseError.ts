/** Why the embedded PostgreSQL could not be started or joined: one line that says what to do. */
export class EmbeddedDatabaseError extends Error {
  override name = "EmbeddedDatabaseError";
}
