import type { ServerResponse } from 'node:http';

/** In-flight requests, and the draining that graceful shutdown waits on. */
export interface Drain {
  /** Count a request from its start… */
  track(res: ServerResponse): void;
  /** …until it is over: its answer written whole, or its response closed (finished or abandoned). */
  release(res: ServerResponse): void;
  readonly draining: boolean;
  readonly inFlight: number;
  /** Start draining; resolve true once nothing is in flight, false if `timeoutMs` passes first. */
  drain(timeoutMs: number): Promise<boolean>;
}

/** Connection: close on every response from now on, so keep-alive sockets end with their last answer. */
function closeAfter(res: ServerResponse): void {
  if (!res.headersSent) res.setHeader('Connection', 'close');
}

/** A fresh tracker; one per server. */
export function createDrain(): Drain {
  const live = new Set<ServerResponse>();
  let draining = false;
  let idle: (() => void) | null = null;

  return {
    track(res) {
      live.add(res);
      if (draining) closeAfter(res);
    },
    release(res) {
      live.delete(res);
      if (live.size === 0) idle?.();
    },
    get draining() {
      return draining;
    },
    get inFlight() {
      return live.size;
    },
    drain(timeoutMs) {
      draining = true;
      for (const res of live) closeAfter(res);
      if (live.size === 0) return Promise.resolve(true);
      return new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), timeoutMs);
        // The drain deadline alone must not keep the process alive.
        timer.unref();
        idle = () => {
          clearTimeout(timer);
          resolve(true);
        };
      });
    },
  };
}
