/** Milliseconds since the epoch; injectable so tests of time-bound behaviour never sleep. */
export interface Clock {
  now(): number;
}

export const SYSTEM_CLOCK: Clock = Object.freeze({ now: () => Date.now() });
