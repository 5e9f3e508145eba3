import { EventEmitter } from "node:events";

/**
 * Services emit typed events; metrics and logs subscribe (SPEC §3: domain code makes no metrics
 * calls). Add an entry here for each new event; payloads carry ids and numbers, never secrets.
 */
export interface ServiceEvents {
  "http.request": { method: string; route: string; status: number; durationSeconds: number };
  "gateway.request": {
    gateway: "um" | "pe";
    method: string;
    route: string;
    status: number;
    durationSeconds: number;
  };
  "gateway.quotaClassification": { matched: boolean };
}

export type EventName = keyof ServiceEvents;

export class EventBus {
  readonly #emitter = new EventEmitter({ captureRejections: false });

  constructor() {
    this.#emitter.setMaxListeners(100);
  }

  emit<K extends EventName>(name: K, payload: ServiceEvents[K]): void {
    try {
      this.#emitter.emit(name, payload);
    } catch {
      // A failing subscriber must never break the operation that emitted the event.
    }
  }

  on<K extends EventName>(name: K, handler: (payload: ServiceEvents[K]) => void): () => void {
    this.#emitter.on(name, handler);
    return () => this.#emitter.off(name, handler);
  }
}
