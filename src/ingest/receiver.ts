/**
 * The ingest path, after routing: token (ingest tokens only) → source → body → events → write →
 * counts. Off without INGEST_TOKENS: the routes answer 404, and the first such request logs a
 * warning, since otherwise an operator sees only that nothing arrives.
 */
import type { IncomingMessage } from 'node:http';
import type { Authenticator } from '../auth/authenticator.ts';
import type { Clock } from '../shared/clock.ts';
import { HttpError } from '../shared/errors.ts';
import type { Logger } from '../process/logger.ts';
import type { Metrics } from '../metrics/metrics.ts';
import type { LogWriter } from '../store/engine.ts';
import { eventsRejected, someNotStored, ingestEvents, type IngestCounts } from './ingest.ts';
import { readEvents } from './ingest-body.ts';
import { SOURCE_NAMES, tableOf } from './sources.ts';
import type { TableStatements } from './statements.ts';
import type { LogTable } from '../store/schema.ts';

export interface Ingest {
  /** Store a request's events; resolves with what became of them, or rejects with the HttpError to answer. */
  /** `signal` fires when the sender hangs up: a batch still waiting for the writer is not written. */
  receive(req: IncomingMessage, params: URLSearchParams, signal?: AbortSignal): Promise<IngestCounts>;
}

export interface IngestOptions {
  auth: Authenticator;
  /** Null when ingest is off (no INGEST_TOKENS). */
  writer: LogWriter | null;
  /** The log writer's statements, compiled once at start-up (statements.ts). */
  statements: Readonly<Record<LogTable, TableStatements>>;
  maxBodyBytes: number;
  metrics: Metrics;
  logger: Logger;
  clock: Clock;
}

export function createIngest(opts: IngestOptions): Ingest {
  const { writer, auth, metrics } = opts;
  if (writer === null) {
    let warned = false;
    return Object.freeze({
      async receive(): Promise<IngestCounts> {
        if (!warned) {
          warned = true;
          opts.logger.warn('a log batch arrived but ingest is off: set INGEST_TOKENS (README, "Ingest logs from Vector"); batches are answered 404 and not stored');
        }
        throw new HttpError('not_found', 'Ingest is off on this service: it stores logs only with INGEST_TOKENS set.');
      },
    });
  }
  const deps = { writer, statements: opts.statements, clock: opts.clock };
  return Object.freeze({
    async receive(req: IncomingMessage, params: URLSearchParams, signal?: AbortSignal): Promise<IngestCounts> {
      const keys = params.getAll('api_key');
      // 401 before anything else: an unauthenticated sender learns nothing about the sources.
      const owner = auth.checkIngest(req.headers, keys.length === 1 ? keys[0]! : null);
      const table = sourceTable(params.getAll('source_name'));
      const { events, bytes, digest } = await readEvents(req, opts.maxBodyBytes);
      const outcome = await ingestEvents(deps, table, events, digest, owner, signal);
      metrics.observeIngest(table, outcome.counts, bytes);
      if (someNotStored(outcome)) throw eventsRejected(outcome);
      return outcome.counts;
    },
  });
}

function sourceTable(names: string[]) {
  if (names.length === 0 || names[0] === '') {
    throw new HttpError('missing_parameter', 'Parameter "source_name" is required: the Logflare source the events belong to (cloudflare.logs.prod, postgres.logs, …).', { param: 'source_name' });
  }
  if (names.length > 1) throw new HttpError('invalid_parameter', 'Parameter "source_name" was given more than once.', { param: 'source_name' });
  const table = tableOf(names[0]!);
  if (table === undefined) {
    throw new HttpError('not_found', `No source named ${JSON.stringify(names[0]!.slice(0, 100))} (names are case-sensitive); the sources are: ${SOURCE_NAMES.join(', ')}.`, { param: 'source_name' });
  }
  return table;
}
