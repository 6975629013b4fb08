/**
 * Fair queueing of statements in front of a store's connections: the one owner of "who runs next".
 *
 * A statement runs for an owner (one object per access token or ingest token). While every
 * connection is busy, or its owner is at its share, it waits in its owner's queue; a freed
 * connection goes to the waiting owner that has used the least database time (start-time fair
 * queueing: each owner is charged the time its statements take, an estimate when one starts and
 * the truth when it ends; time spent idle earns no credit). So a token sending slow statements
 * waits behind tokens sending quick ones, and a burst from one token is queued, not refused.
 *
 * Work conserving, with one reserve: an owner alone may use every connection. While other owners
 * are active (running, queued, or served within ACTIVE_WINDOW_MS), an owner past its share
 * (capacity / active owners) may take a connection only if one stays free for each other active
 * owner below its share. Statements cannot be preempted, so without that reserve a token whose
 * statements run for seconds would hold every connection whenever another token's next call
 * arrives, and that call would wait for one of them to end.
 *
 * Refused only when an owner's own queue is at `maxQueuedPerOwner` (429), when every owner's
 * queues together are at `maxQueued` (503), or when a call has waited `queueTimeoutMs` (429 if its
 * own statements hold its share, 503 otherwise). A caller whose signal fires leaves at once.
 * Background work (cache warming, retention) runs only when no caller waits and, with more than
 * one connection, leaves one free; a caller that comes to depend on it, or a whole queue timeout
 * spent waiting, raises it to a caller's turn.
 */
import { performance } from 'node:perf_hooks';
import { HttpError } from '../shared/errors.ts';

/** What a turn is for, as /metrics reports it (never the token). */
export const QUEUE_CLASSES = ['query', 'ingest', 'warming', 'retention'] as const;
export type QueueClass = (typeof QUEUE_CLASSES)[number];

/** Why a turn was refused. */
export const QUEUE_REJECTIONS = ['token_queue_full', 'queue_full', 'queue_timeout'] as const;
export type QueueRejection = (typeof QUEUE_REJECTIONS)[number];

export interface QueueObserver {
  /** A turn began after waiting `ms`. */
  waited(cls: QueueClass, ms: number): void;
  rejected(cls: QueueClass, reason: QueueRejection): void;
  /** A caller went away while queued. */
  abandoned(cls: QueueClass): void;
}

export interface FairQueueOptions {
  /** Statements run at once: the connections behind the queue. */
  capacity: number;
  /** Calls one owner may have waiting (MAX_QUEUED_PER_TOKEN). */
  maxQueuedPerOwner: number;
  /** Calls all owners together may have waiting (POOL_MAX_WAITING). */
  maxQueued: number;
  /** Longest wait for a turn (QUEUE_TIMEOUT_MS). */
  queueTimeoutMs: number;
  /**
   * Asked when a turn's task settles: a promise while the connections cannot serve the next turn
   * yet (the embedded engine replacing a worker after a cut-off statement: Engine.notReady). The
   * caller has its answer at once; the turn, and the time charged to its owner, last until the
   * promise settles.
   */
  notReady?: (() => Promise<void> | undefined) | undefined;
  observer?: QueueObserver;
  now?: () => number;
}

/** A background turn a caller now waits for: it is served as a caller's from then on. */
export interface Promotion {
  promoted: boolean;
  onPromote: (() => void) | null;
}

export interface TurnOptions {
  cls: QueueClass;
  /** Fires when the caller goes away: a queued turn leaves the queue. */
  signal?: AbortSignal;
  /** Lowest priority (module comment); `promotion` lets a caller raise it. */
  background?: boolean;
  promotion?: Promotion;
}

/** Waiting per class, for /metrics. */
export type QueueStats = Record<QueueClass, { waiting: number; running: number }>;

/** How long an owner counts as active after its last statement ended. */
export const ACTIVE_WINDOW_MS = 2_000;
/** An owner's first statements are charged this until it has a measured average (ms). */
const INITIAL_ESTIMATE_MS = 1;
/** Weight of the newest duration in an owner's moving average. */
const ESTIMATE_WEIGHT = 0.2;

interface Owner {
  readonly key: object;
  readonly queue: Waiter[];
  running: number;
  /** Virtual milliseconds of database time charged so far. */
  used: number;
  /** Moving average of its statements' durations (ms): charged when one starts. */
  estimate: number;
  /** When it last ended a statement (or arrived). */
  lastSeen: number;
  /** The service's own (warming, retention): never counted among the active owners that share. */
  readonly own: boolean;
}

interface Waiter {
  readonly owner: Owner;
  readonly cls: QueueClass;
  readonly enqueuedAt: number;
  background: boolean;
  timer: NodeJS.Timeout | undefined;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
  resolve(charged: number): void;
  reject(err: Error): void;
}

/** The error a turn whose caller went away rejects with; nobody reads its answer. */
export class TurnAbandoned extends Error {
  constructor() {
    super('the caller went away while its call was queued');
    this.name = 'AbortError';
  }
}

export class FairQueue {
  private readonly owners = new Map<object, Owner>();
  private readonly background: Waiter[] = [];
  private running = 0;
  /** `running` by class, for /metrics. */
  private readonly runningByClass = Object.fromEntries(QUEUE_CLASSES.map((c) => [c, 0])) as Record<QueueClass, number>;
  /** Callers waiting (background turns not counted). */
  private waiting = 0;
  /** The start tag of the statement that last began (virtual ms). */
  private virtualNow = 0;
  private readonly now: () => number;

  constructor(private readonly opts: FairQueueOptions) {
    if (!(opts.capacity >= 1)) throw new RangeError('a queue needs at least one connection behind it');
    this.now = opts.now ?? (() => performance.now());
  }

  /** Run `task` in a turn of `owner`'s: at once when it may, else when the queue gives it one. */
  async run<T>(owner: object, task: () => Promise<T>, turn: TurnOptions): Promise<T> {
    const o = this.owner(owner, turn.background === true);
    // The common case, a free connection and nobody waiting: no waiter, no timer.
    let charged: number;
    if (this.waiting === 0 && !turn.background && this.mayStart(o, this.now())) {
      charged = this.start(o, turn.cls);
      this.opts.observer?.waited(turn.cls, 0);
    } else {
      charged = await this.enqueue(o, turn);
    }
    const started = this.now();
    try {
      return await task();
    } finally {
      const held = this.opts.notReady?.();
      if (held === undefined) this.end(o, turn.cls, charged, started);
      else void held.then(() => this.end(o, turn.cls, charged, started), () => this.end(o, turn.cls, charged, started));
    }
  }

  /** Callers and running statements per class. */
  stats(): QueueStats {
    const stats = Object.fromEntries(QUEUE_CLASSES.map((c) => [c, { waiting: 0, running: 0 }])) as QueueStats;
    for (const o of this.owners.values()) {
      for (const w of o.queue) stats[w.cls].waiting++;
    }
    for (const w of this.background) stats[w.cls].waiting++;
    for (const c of QUEUE_CLASSES) stats[c].running = this.runningByClass[c];
    return stats;
  }

  private owner(key: object, own: boolean): Owner {
    let o = this.owners.get(key);
    // Owners are a bounded set (the tokens fixed at start-up, and the service's own), kept for life.
    if (o === undefined) {
      o = { key, queue: [], running: 0, used: this.virtualNow, estimate: INITIAL_ESTIMATE_MS, lastSeen: -Infinity, own };
      this.owners.set(key, o);
    }
    return o;
  }

  private enqueue(o: Owner, turn: TurnOptions): Promise<number> {
    const { cls } = turn;
    if (turn.signal?.aborted) return Promise.reject(new TurnAbandoned());
    if (o.queue.length >= this.opts.maxQueuedPerOwner) {
      this.opts.observer?.rejected(cls, 'token_queue_full');
      return Promise.reject(this.tooMany(o, `This access token already has ${o.queue.length} calls waiting (MAX_QUEUED_PER_TOKEN); retry later.`));
    }
    if (this.waiting + this.background.length >= this.opts.maxQueued) {
      this.opts.observer?.rejected(cls, 'queue_full');
      return Promise.reject(this.overloaded(`${this.waiting + this.background.length} calls are already waiting for a database connection (POOL_MAX_WAITING); retry shortly.`));
    }
    return new Promise<number>((resolve, reject) => {
      const w: Waiter = { owner: o, cls, enqueuedAt: this.now(), background: turn.background === true, timer: undefined, signal: turn.signal, onAbort: undefined, resolve, reject };
      this.arm(w);
      if (turn.signal) {
        w.onAbort = () => {
          if (!this.remove(w)) return;
          this.opts.observer?.abandoned(cls);
          reject(new TurnAbandoned());
          this.pump();
        };
        turn.signal.addEventListener('abort', w.onAbort, { once: true });
      }
      if (w.background) {
        this.background.push(w);
        if (turn.promotion) {
          turn.promotion.onPromote = () => {
            if (w.background) this.raise(w);
          };
          if (turn.promotion.promoted) turn.promotion.onPromote();
        }
      } else {
        this.add(w);
      }
      this.pump();
    });
  }

  private add(w: Waiter): void {
    w.owner.queue.push(w);
    this.waiting++;
  }

  /** Take `w` out of whichever queue holds it; false if it is no longer queued. */
  private remove(w: Waiter): boolean {
    const list = w.background ? this.background : w.owner.queue;
    const i = list.indexOf(w);
    if (i === -1) return false;
    list.splice(i, 1);
    if (!w.background) this.waiting--;
    clearTimeout(w.timer);
    if (w.onAbort) w.signal?.removeEventListener('abort', w.onAbort);
    return true;
  }

  /** Start (or restart) a waiter's queue timeout. */
  private arm(w: Waiter): void {
    w.timer = setTimeout(() => this.timedOut(w), this.opts.queueTimeoutMs);
  }

  /** A background turn served as a caller's from now on, in its owner's queue, with a fresh timeout. */
  private raise(w: Waiter): void {
    if (!this.remove(w)) return;
    w.background = false;
    this.add(w);
    this.arm(w);
    this.pump();
  }

  private timedOut(w: Waiter): void {
    // Background work that waited a whole timeout (callers kept every connection busy) is not
    // refused but raised, so warming and retention still make progress under sustained load.
    if (w.background) return this.raise(w);
    if (!this.remove(w)) return;
    this.opts.observer?.rejected(w.cls, 'queue_timeout');
    const waited = `${this.opts.queueTimeoutMs} ms (QUEUE_TIMEOUT_MS)`;
    // Waiting on its own statements is the token's load; waiting on everyone's is the service's.
    w.reject(w.owner.running >= this.share(this.now())
      ? this.tooMany(w.owner, `This access token's call waited ${waited} behind its own statements; retry later.`)
      : this.overloaded(`The call waited ${waited} for a database connection; retry shortly.`));
    this.pump();
  }

  /** Give free connections to waiting turns, fairest first. */
  private pump(): void {
    while (this.running < this.opts.capacity) {
      const w = this.next();
      if (w === undefined) return;
      this.remove(w);
      this.opts.observer?.waited(w.cls, this.now() - w.enqueuedAt);
      w.resolve(this.start(w.owner, w.cls));
    }
  }

  /** The waiting turn to serve next: the eligible owner least charged; background only when no caller waits. */
  private next(): Waiter | undefined {
    const now = this.now();
    let best: Owner | undefined;
    let bestTag = Infinity;
    for (const o of this.owners.values()) {
      if (o.queue.length === 0 || !this.mayStart(o, now)) continue;
      const tag = Math.max(o.used, this.virtualNow);
      if (tag < bestTag) {
        best = o;
        bestTag = tag;
      }
    }
    if (best !== undefined) return best.queue[0];
    const free = this.opts.capacity - this.running;
    if (this.waiting === 0 && (this.opts.capacity === 1 || free >= 2)) return this.background[0];
    return undefined;
  }

  /** Whether `o` may take a free connection now (module comment: share and reserve). */
  private mayStart(o: Owner, now: number): boolean {
    const free = this.opts.capacity - this.running;
    if (free <= 0) return false;
    const share = this.share(now);
    if (o.running < share) return true;
    let needy = 0;
    for (const p of this.owners.values()) if (p !== o && p.running < share && this.active(p, now)) needy++;
    return free - 1 >= needy;
  }

  /** Each active owner's share of the connections. */
  private share(now: number): number {
    let active = 0;
    for (const o of this.owners.values()) if (this.active(o, now)) active++;
    return Math.ceil(this.opts.capacity / Math.max(1, active));
  }

  private active(o: Owner, now: number): boolean {
    return !o.own && (o.running > 0 || o.queue.length > 0 || now - o.lastSeen < ACTIVE_WINDOW_MS);
  }

  /** Begin a statement of `o`'s: charge its estimate now (corrected when it ends); returns the charge. */
  private start(o: Owner, cls: QueueClass): number {
    const tag = Math.max(o.used, this.virtualNow);
    this.virtualNow = tag;
    o.used = tag + o.estimate;
    o.running++;
    this.runningByClass[cls]++;
    this.running++;
    return o.estimate;
  }

  private end(o: Owner, cls: QueueClass, charged: number, started: number): void {
    const now = this.now();
    const ms = now - started;
    o.used += ms - charged;
    o.estimate += ESTIMATE_WEIGHT * (ms - o.estimate);
    o.lastSeen = now;
    o.running--;
    this.runningByClass[cls]--;
    this.running--;
    this.pump();
  }

  /** 429 with a Retry-After from how long this owner's queue takes to drain at its pace. */
  private tooMany(o: Owner, message: string): HttpError {
    const seconds = Math.max(1, Math.ceil((o.queue.length * o.estimate) / Math.max(1, o.running) / 1000));
    return new HttpError('too_many_requests', message, { headers: { 'Retry-After': String(seconds) } });
  }

  private overloaded(message: string): HttpError {
    return new HttpError('overloaded', message, { headers: { 'Retry-After': '1' } });
  }
}

/** Two queues' stats as one (the query path's and, on PostgreSQL, the ingest writer's). */
export function mergeQueueStats(a: QueueStats, b: QueueStats | undefined): QueueStats {
  if (b === undefined) return a;
  return Object.fromEntries(QUEUE_CLASSES.map((c) => [c, { waiting: a[c].waiting + b[c].waiting, running: a[c].running + b[c].running }])) as QueueStats;
}
