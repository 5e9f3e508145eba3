/** pg-boss's schema name is an SQL identifier we interpolate; only plain lowercase names pass. */
export function assertQueueSchemaName(name: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`Invalid queue schema name: ${name}`);
  return name;
}
