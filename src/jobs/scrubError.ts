/**
 * A loggable copy of a handler's error with every credential the delivery handed out replaced:
 * an upstream client that echoes its Authorization header into an exception must not carry the
 * user's token into the logs. Pure.
 */
export function scrubError(error: unknown, secrets: readonly string[]): unknown {
  const present = secrets.filter((secret) => secret.length >= 8);
  if (present.length === 0) return error;
  const scrub = (text: string) => present.reduce((out, secret) => out.split(secret).join("[redacted]"), text);
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return {
      type: error.name,
      message: scrub(error.message),
      stack: error.stack ? scrub(error.stack) : undefined,
      ...(typeof code === "string" ? { code } : {}),
    };
  }
  return scrub(typeof error === "string" ? error : (JSON.stringify(error) ?? String(error)));
}
