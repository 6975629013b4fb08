/**
 * The store is checked, not trusted: whether the log store has what each stored query reads (its
 * tables, the rollup, the columns, and the service role's privileges on them). Each stored query
 * brings its probes (registry.ts: its statement and, when sandboxed, every CTE, planned with no
 * row produced), so what a probe finds missing is exactly what a call would fail on. Checked at
 * start-up, by /ready, and again when a call fails the way a missing table or grant fails; a
 * store fixed while the service runs is seen at the next check, without a restart.
 */
import { SYSTEM_CLOCK, type Clock } from '../shared/clock.ts';
import { HttpError } from '../shared/errors.ts';
import type { Engine } from './engine.ts';
import { quoteIdent } from './schema.ts';

/**
 * A stored query as the check sees it: its name and its probes, the statements that plan what it
 * reads without producing a row (registry.ts makes them).
 */
export interface Probed {
  readonly name: string;
  readonly probes: readonly StoreProbe[];
}

/** One probe: a statement and its sample values. */
export interface StoreProbe {
  readonly sql: string;
  readonly params: readonly (string | null)[];
}

/** One thing a stored query needs that the store does not have, and how to fix it. */
export interface StoreProblem {
  readonly query: string;
  /** What is missing, in the database's words where they name it. */
  readonly what: string;
  readonly fix: string;
}

// SQLSTATEs of a store that does not match the stored SQL (PostgreSQL manual, appendix A):
// undefined table, column, function, object; invalid schema name; insufficient privilege.
const STORE_CODES: ReadonlySet<string> = new Set(['42P01', '42703', '42883', '42704', '3F000', '42501']);

/** Whether a database error is one a store set up wrong gives (a missing table, column, grant). */
export function isStoreError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && STORE_CODES.has(code);
}

/** How soon a caller may retry a store that is not ready: a fix is an operator's command away. */
export const STORE_RETRY_AFTER_SECONDS = '5';
/** A stored query is probed at most this often, however many calls or /ready probes ask. */
const RECHECK_MS = 1_000;

interface State {
  problems: readonly StoreProblem[];
  at: number;
  running: Promise<readonly StoreProblem[]> | undefined;
}

export class StoreCheck {
  private readonly states = new Map<Probed, State>();

  constructor(
    private readonly engine: Engine,
    private readonly queries: readonly Probed[],
    private readonly schema: string,
    private readonly clock: Clock = SYSTEM_CLOCK,
  ) {}

  /** Every stored query's problems (each probed again unless it was within the last second). */
  async checkAll(): Promise<readonly StoreProblem[]> {
    const all = await Promise.all(this.queries.map((q) => this.check(q)));
    return all.flat();
  }

  /**
   * What the last completed check of every stored query found, or undefined while one has never
   * completed. /ready answers from it when the probes wait behind callers' statements for longer
   * than it may take: a busy database is not a store that lacks something.
   */
  lastKnown(): readonly StoreProblem[] | undefined {
    const found: StoreProblem[] = [];
    for (const q of this.queries) {
      const state = this.states.get(q);
      if (state === undefined || state.at === -Infinity) return undefined;
      found.push(...state.problems);
    }
    return found;
  }

  /**
   * One stored query's problems, probed again unless it was within the last second (or `fresh`);
   * concurrent askers share one probe. A database that cannot be reached rejects (its caller maps
   * that to 503).
   */
  check(q: Probed, fresh = false): Promise<readonly StoreProblem[]> {
    let state = this.states.get(q);
    if (state === undefined) {
      state = { problems: [], at: -Infinity, running: undefined };
      this.states.set(q, state);
    }
    if (state.running !== undefined) return state.running;
    if (!fresh && this.clock.now() - state.at < RECHECK_MS) return Promise.resolve(state.problems);
    const s = state;
    s.running = this.probe(q).then(
      (problems) => {
        s.problems = problems;
        s.at = this.clock.now();
        s.running = undefined;
        return problems;
      },
      (err: unknown) => {
        s.running = undefined;
        throw err;
      },
    );
    return s.running;
  }

  /**
   * The error a call that failed with `err` answers: 503 store_not_ready when the store is what is
   * wrong (for a stored query's own statement, always; with caller sql, when its probes say so,
   * since a caller's own typo fails the same way); undefined when `err` is not the store's doing.
   * A stored statement failing so is news (probed at once); caller sql reuses a check of the last
   * second, so a caller's typos cannot make the service probe on every call.
   */
  async callError(q: Probed, err: unknown, callerSql: boolean): Promise<HttpError | undefined> {
    if (!isStoreError(err)) return undefined;
    const problems = await this.check(q, !callerSql).catch(() => undefined);
    if (problems !== undefined && problems.length > 0) return storeNotReady(problems);
    if (callerSql) return undefined;
    return storeNotReady([this.problem(q, err, await this.role())]);
  }

  /** The role the service reads as, quoted for a GRANT (a placeholder if it cannot be asked). */
  private async role(): Promise<string> {
    try {
      const [row] = await this.engine.query('select current_user::text as role', []);
      return typeof row?.['role'] === 'string' ? quoteIdent(row['role']) : '<the role in DATABASE_URL>';
    } catch {
      return '<the role in DATABASE_URL>';
    }
  }

  private async probe(q: Probed): Promise<readonly StoreProblem[]> {
    // All at once, read in order: each waits for the connection only once (on the embedded store,
    // one after the other would each wait behind the next caller statement in its one session).
    const outcomes = await Promise.allSettled(q.probes.map((p) => this.engine.query(p.sql, p.params)));
    for (const outcome of outcomes) {
      if (outcome.status === 'fulfilled') continue;
      const err = outcome.reason;
      if (!isStoreError(err)) {
        // A probe value the statement refuses (22xxx) says nothing about the store.
        if (/^22/.test(String((err as { code?: unknown }).code))) continue;
        throw err;
      }
      // The first thing missing is enough to act on; its fix usually mends the rest.
      return [this.problem(q, err, await this.role())];
    }
    return [];
  }


  private problem(q: Probed, err: unknown, role: string): StoreProblem {
    const { code, message } = err as { code: string; message: string };
    const schemaFix = `apply the schema: node dist/main.js schema (npm run schema in a checkout) with DATABASE_URL of a role that may create tables in schema "${this.schema}"`;
    if (code === '42501') {
      return {
        query: q.name,
        what: `the service's database role may not read what it needs (${message})`,
        fix: `as the schema's owner run: grant usage on schema ${this.schema} to ${role}; grant select on all tables in schema ${this.schema} to ${role};`,
      };
    }
    return { query: q.name, what: message, fix: schemaFix };
  }
}

/** The 503 for a store that does not have what the stored queries read. */
export function storeNotReady(problems: readonly StoreProblem[]): HttpError {
  const text = problems.map((p) => `${p.query}: ${p.what}; to fix it, ${p.fix}`).join(' | ');
  return new HttpError('store_not_ready', `The log store is not ready. ${text}. Calls succeed again once it is fixed, without a restart.`, {
    headers: { 'Retry-After': STORE_RETRY_AFTER_SECONDS },
  });
}
