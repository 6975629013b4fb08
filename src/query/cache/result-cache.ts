/**
 * In-memory result cache: LRU bounds on entries and bytes, single-flight loads, and background
 * warming (docs/caching.md). Knows nothing about HTTP or databases; the caller supplies a `load`
 * function per key, and only cached policies (cache-policy.ts) reach it.
 */
import { SYSTEM_CLOCK, type Clock } from '../../shared/clock.ts';
import { LruMap } from '../../shared/lru-map.ts';
import type { EncodedResult } from '../encoded-result.ts';
import type { CachedPolicy } from './cache-policy.ts';
import type { Promotion } from '../../queue/fair-queue.ts';


export interface CacheOptions {
  maxEntries: number;
  /** Bound on the sum of body.length + key.length over stored entries. */
  maxBytes: number;
  /**
   * Largest single entry stored; default maxBytes / MAX_ENTRY_FRACTION. A larger answer is served
   * but not stored, so one caller's huge answers cannot evict everyone else's.
   */
  maxEntryBytes?: number;
  clock?: Clock;
  setInterval?: typeof setInterval;
  clearInterval?: typeof clearInterval;
  onRefreshError?: (key: string, err: unknown) => void;
  /** Warming tick period; default 1000 ms. Refreshes run at most this late. */
  tickMs?: number;
  /** Refreshes running at once, cache-wide; default 2. */
  maxConcurrentRefreshes?: number;
}

export interface CacheStats {
  hits: number;
  misses: number;
  coalesced: number;
  /** Refresh loads that succeeded. */
  refreshes: number;
  refreshFailures: number;
  /** Entries removed to respect maxEntries/maxBytes (not expiry or idleness). */
  evictions: number;
  entries: number;
  bytes: number;
}

export type CacheStatus = 'hit' | 'miss' | 'coalesced';

export interface CacheAnswer {
  result: EncodedResult;
  status: CacheStatus;
  ageMs: number;
  ttlRemainingMs: number;
}

/** A refresh's load is handed a Promotion: raised when a caller comes to wait for it (fair-queue.ts). */
type Load = (promotion?: Promotion) => Promise<EncodedResult>;

interface Entry {
  result: EncodedResult;
  /** When the load that produced `result` started: the data is at least this fresh. */
  createdAt: number;
  lastRequestedAt: number;
  /** After a failed refresh: not retried before this, so an outage never costs more than normal warming. */
  retryAt: number;
  bytes: number;
  // Kept with the entry so warming can re-run the latest definition without a caller.
  policy: CachedPolicy;
  load: Load;
}

interface Flight {
  promise: Promise<EncodedResult>;
  startedAt: number;
  refresh: boolean;
  /** A refresh's: a caller joining it raises it from background priority. */
  promotion: Promotion | null;
}

const DEFAULT_TICK_MS = 1000;
const DEFAULT_MAX_REFRESHES = 2;
export const MAX_ENTRY_FRACTION = 8;

/** LRU-bounded result cache; docs/caching.md states the guarantees. */
export class ResultCache {
  private readonly entries = new LruMap<string, Entry>();
  private readonly flights = new Map<string, Flight>();
  private readonly runningRefreshes = new Set<Flight>();
  private readonly clock: Clock;
  private readonly setIntervalFn: typeof setInterval;
  private readonly clearIntervalFn: typeof clearInterval;
  private readonly tickMs: number;
  private readonly maxRefreshes: number;
  private readonly maxEntryBytes: number;
  private timer: ReturnType<typeof setInterval> | null = null;
  private bytes = 0;
  private readonly counters = { hits: 0, misses: 0, coalesced: 0, refreshes: 0, refreshFailures: 0, evictions: 0 };
  private readonly opts: CacheOptions;

  constructor(opts: CacheOptions) {
    this.opts = opts;
    this.clock = opts.clock ?? SYSTEM_CLOCK;
    this.setIntervalFn = opts.setInterval ?? setInterval;
    this.clearIntervalFn = opts.clearInterval ?? clearInterval;
    this.tickMs = opts.tickMs ?? DEFAULT_TICK_MS;
    this.maxRefreshes = Math.max(1, opts.maxConcurrentRefreshes ?? DEFAULT_MAX_REFRESHES);
    this.maxEntryBytes = opts.maxEntryBytes ?? Math.floor(opts.maxBytes / MAX_ENTRY_FRACTION);
  }

  /**
   * Get a fresh entry or run a load once for all concurrent callers of this key. `load` is kept
   * with the entry for warming; `missLoad` (default `load`) is what this caller's own miss runs.
   */
  async get(key: string, policy: CachedPolicy, load: Load, missLoad: Load = load): Promise<CacheAnswer> {
    return this.hit(key, policy, load) ?? this.fill(key, policy, load, missLoad);
  }

  /**
   * The rest of `get`, for a caller whose `hit` just found no fresh entry (and has not awaited
   * since): join the load already running for `key`, or start one.
   */
  async fill(key: string, policy: CachedPolicy, load: Load, missLoad: Load = load): Promise<CacheAnswer> {
    const now = this.clock.now();
    const entry = this.entries.get(key);

    // Expired or absent. A load already running (a miss, or a refresh of the expired entry) is joined.
    const running = this.flights.get(key);
    if (running) {
      this.counters.coalesced++;
      if (running.promotion !== null && !running.promotion.promoted) {
        running.promotion.promoted = true;
        running.promotion.onPromote?.();
      }
      return this.answer(await running.promise, 'coalesced', running.startedAt, policy);
    }
    if (entry) this.remove(key);
    this.counters.misses++;
    const flight = this.startFlight(key, policy, load, false, now, missLoad);
    return this.answer(await flight.promise, 'miss', flight.startedAt, policy);
  }

  /**
   * The fresh entry for `key`, synchronously, or undefined (absent or expired: then `get`). A
   * request counts as one either way; `load` is kept with the entry for warming.
   */
  hit(key: string, policy: CachedPolicy, load: Load): CacheAnswer | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    const now = this.clock.now();
    entry.lastRequestedAt = now;
    entry.policy = policy;
    entry.load = load;
    this.entries.use(key);
    // Strict: an entry exactly ttl old is already too old to serve.
    if (entry.createdAt + policy.ttlMs <= now) return undefined;
    this.counters.hits++;
    return { result: entry.result, status: 'hit', ageMs: now - entry.createdAt, ttlRemainingMs: entry.createdAt + policy.ttlMs - now };
  }

  /** Counters since construction plus current size. */
  stats(): CacheStats {
    return { ...this.counters, entries: this.entries.size, bytes: this.bytes };
  }

  /** Start the warming tick (idempotent); the timer is unref'd so it never keeps the process alive. */
  startWarming(): void {
    if (this.timer) return;
    const set = this.setIntervalFn;
    this.timer = set(() => this.tick(), this.tickMs);
    this.timer.unref?.();
  }

  /** Stop warming and forget in-flight loads: their callers still get results, but nothing is stored. */
  stop(): void {
    if (this.timer) {
      const clear = this.clearIntervalFn;
      clear(this.timer);
      this.timer = null;
    }
    this.flights.clear();
    this.runningRefreshes.clear();
  }

  /** Drop every entry; loads already running are forgotten so they cannot repopulate stale data. */
  clear(): void {
    this.entries.clear();
    this.flights.clear();
    this.bytes = 0;
  }

  private answer(result: EncodedResult, status: CacheStatus, startedAt: number, policy: CachedPolicy): CacheAnswer {
    const now = this.clock.now();
    return { result, status, ageMs: Math.max(0, now - startedAt), ttlRemainingMs: Math.max(0, startedAt + policy.ttlMs - now) };
  }

  private startFlight(key: string, policy: CachedPolicy, load: Load, refresh: boolean, startedAt: number, run: Load = load): Flight {
    // Wrapping catches a synchronous throw from `load` so it rejects like an async failure.
    const promotion: Promotion | null = refresh ? { promoted: false, onPromote: null } : null;
    const promise = new Promise<EncodedResult>((resolve) => resolve(promotion === null ? run() : run(promotion)));
    const flight: Flight = { promise, startedAt, refresh, promotion };
    this.flights.set(key, flight);
    if (refresh) this.runningRefreshes.add(flight);
    // Registered before any caller awaits, so the entry is stored by the time callers resume.
    promise.then(
      (result) => this.settle(key, flight, () => this.store(key, flight, policy, load, result)),
      (err: unknown) => this.settle(key, flight, () => this.refreshFailed(key, flight, err)),
    );
    return flight;
  }

  private settle(key: string, flight: Flight, apply: () => void): void {
    this.runningRefreshes.delete(flight);
    // After clear()/stop() the flight is no longer ours: its outcome must not touch the cache.
    if (this.flights.get(key) === flight) {
      this.flights.delete(key);
      apply();
    }
    if (flight.refresh) this.pump(this.clock.now());
  }

  private refreshFailed(key: string, flight: Flight, err: unknown): void {
    // Miss failures reach their callers via the promise; errors are never stored either way.
    if (!flight.refresh) return;
    this.counters.refreshFailures++;
    const entry = this.entries.get(key);
    if (entry) entry.retryAt = this.clock.now() + (entry.policy.warmIntervalMs ?? 0);
    try {
      this.opts.onRefreshError?.(key, err);
    } catch {
      // A faulty reporter must not turn into an unhandled rejection.
    }
  }

  private store(key: string, flight: Flight, policy: CachedPolicy, load: Load, result: EncodedResult): void {
    const now = this.clock.now();
    const existing = this.entries.get(key);
    if (flight.refresh) {
      this.counters.refreshes++;
      // Evicted or dropped while refreshing: don't resurrect it.
      if (!existing) return;
    }
    const bytes = result.body.length + key.length;
    const ttlMs = existing?.policy.ttlMs ?? policy.ttlMs;
    // Too big for one entry, or already too old to serve (load outlasted the ttl): serve, don't store.
    if (bytes > this.maxEntryBytes || this.opts.maxEntries < 1 || flight.startedAt + ttlMs <= now) {
      if (existing) this.remove(key);
      return;
    }
    if (existing) {
      // In place: a refresh is not a request, so it must not move the entry in LRU order.
      this.bytes += bytes - existing.bytes;
      existing.result = result;
      existing.createdAt = flight.startedAt;
      existing.retryAt = 0;
      existing.bytes = bytes;
    } else {
      this.entries.set(key, { result, createdAt: flight.startedAt, lastRequestedAt: flight.startedAt, retryAt: 0, bytes, policy, load });
      this.bytes += bytes;
    }
    this.evict();
  }

  private evict(): void {
    while (this.entries.size > this.opts.maxEntries || this.bytes > this.opts.maxBytes) {
      const key = this.entries.leastRecent();
      if (key === undefined) return;
      this.remove(key);
      this.counters.evictions++;
    }
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }

  private tick(): void {
    const now = this.clock.now();
    for (const [key, entry] of this.entries) {
      if (this.flights.has(key)) continue;
      const { ttlMs } = entry.policy;
      // Expired entries can never be served again; idle ones (nobody asked for ttl) stop being warmed.
      if (entry.createdAt + ttlMs <= now || now - entry.lastRequestedAt >= ttlMs) this.remove(key);
    }
    this.pump(now);
  }

  /** Start due refreshes, oldest result first, up to the concurrency cap; called per tick and as refreshes finish. */
  private pump(now: number): void {
    if (!this.timer) return;
    const slots = this.maxRefreshes - this.runningRefreshes.size;
    if (slots <= 0) return;
    const due: [string, Entry][] = [];
    for (const [key, entry] of this.entries) {
      const { ttlMs, warmIntervalMs } = entry.policy;
      if (warmIntervalMs === null || warmIntervalMs <= 0 || this.flights.has(key)) continue;
      if (entry.createdAt + warmIntervalMs > now || entry.retryAt > now) continue;
      if (entry.createdAt + ttlMs <= now || now - entry.lastRequestedAt >= ttlMs) continue;
      due.push([key, entry]);
    }
    due.sort((a, b) => a[1].createdAt - b[1].createdAt);
    for (const [key, entry] of due.slice(0, slots)) this.startFlight(key, entry.policy, entry.load, true, now);
  }
}
