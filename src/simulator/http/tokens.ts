import type { SimulatorStore } from "../store/simulatorStore.ts";

/**
 * Bearer bookkeeping. Presence is all that authenticates (the simulator cannot verify Semrush
 * tokens); a revoked token answers 401; a token bound to workspaces may only touch those workspaces
 * and their descendants (403 elsewhere). An unbound token may touch everything.
 */
export class TokenRegistry {
  #revoked = new Set<string>();
  #bindings = new Map<string, Set<string>>();

  revoke(token: string): void {
    this.#revoked.add(token);
  }

  isRevoked(token: string): boolean {
    return this.#revoked.has(token);
  }

  bind(token: string, workspaceId: string): void {
    const bound = this.#bindings.get(token) ?? new Set<string>();
    bound.add(workspaceId);
    this.#bindings.set(token, bound);
  }

  allows(store: SimulatorStore, token: string, workspaceId: string): boolean {
    const bound = this.#bindings.get(token);
    if (!bound) return true;
    for (const root of bound) if (store.isWithin(workspaceId, root)) return true;
    return false;
  }

  clear(): void {
    this.#revoked.clear();
    this.#bindings.clear();
  }
}

export function bearerOf(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  const match = value ? /^Bearer\s+(\S+)\s*$/i.exec(value) : null;
  return match?.[1];
}
