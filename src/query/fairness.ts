/**
 * Fairness between tokens: each access token may have at most `perToken` statements of its own
 * running at once (uncached calls and cache misses; cache hits and background refreshes cost
 * nothing here). One more is answered 429 at once, so a single token can never hold every pooled
 * connection (or the embedded engine's one session) and starve the others.
 */
import { HttpError } from '../errors.ts';

/** Seconds a refused caller is told to wait; statements of a log query usually end within it. */
const RETRY_AFTER_SECONDS = '1';

export class StatementSlots {
  // Keyed by the token's principal object: one per grant, a set fixed at start-up. A count back at 0
  // stays in the map: a map that loses and regains an entry per call is rebuilt every few calls,
  // and its superseded tables hold on to young objects through scavenges (drain.ts).
  private readonly running = new Map<object, number>();

  constructor(private readonly perToken: number) {}

  /** Run `statement` in one of `owner`'s slots, or throw `too_many_requests` when it has none left. */
  async run<T>(owner: object, statement: () => Promise<T>): Promise<T> {
    const n = this.running.get(owner) ?? 0;
    if (n >= this.perToken) {
      throw new HttpError('too_many_requests', `This access token already has ${n} statements running; retry shortly.`, { headers: { 'Retry-After': RETRY_AFTER_SECONDS } });
    }
    this.running.set(owner, n + 1);
    try {
      return await statement();
    } finally {
      this.running.set(owner, (this.running.get(owner) ?? 1) - 1);
    }
  }
}
