import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorCode } from '../shared/errors.ts';
import type { Format } from '../query/formats.ts';
import type { QueryAnswer } from '../query/run-query.ts';
import type { HeaderList } from './respond.ts';

/**
 * One request as it goes through the HTTP layer: the node objects, the headers every response
 * carries, and what the request log and metrics will report, filled in as the request goes along.
 */
export class RequestContext {
  /** Route kind once matched ('none' until then). */
  route = 'none';
  /** Name of the stored query once resolved; never the raw path segment (unbounded, caller-chosen). */
  query = '';
  /** Request path without the query string, once split. */
  pathname = '';
  rows: number | undefined;
  cache: QueryAnswer['cache'] | undefined;
  code: ErrorCode | undefined;
  /** Where the drain counts this request (drain.ts). */
  drainSlot = -1;
  /** A stored query's answer, ready, waiting to be written with the others of this turn (answer-batch.ts). */
  pendingAnswer: QueryAnswer | undefined;
  /** The format a stored query's answer is written in (formats.ts), decided before it runs. */
  format: Format = 'json';
  private abort: AbortController | null = null;

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly requestId: string,
    readonly started: number,
    /** The CORS headers, fixed at start-up: on every response, errors included, with X-Request-Id. */
    readonly cors: HeaderList,
  ) {}

  /**
   * Call `closed` once the response closes, finished or abandoned (then `clientGone()` fires). Only
   * a request still under way when the handler returns needs this: the handler settles an answer
   * already written whole at once, without a listener.
   */
  onClose(closed: (ctx: RequestContext) => void): void {
    // 'on', not 'once': close is emitted once, and once() wraps.
    this.res.on('close', () => {
      if (this.abort !== null && !this.res.writableFinished) this.abort.abort();
      closed(this);
    });
  }

  /** The headers every response carries (CORS and X-Request-Id), for answers other than a stored query's. */
  get headers(): HeaderList {
    return [...this.cors, 'X-Request-Id', this.requestId];
  }

  /** The client went away before the answer was complete and `clientGone()` has fired. */
  get abandoned(): boolean {
    return this.abort !== null && this.abort.signal.aborted;
  }

  /**
   * A signal that fires if the response closes before it is complete (the client went away).
   * Created on first ask: the cached path never pays for an AbortController.
   */
  clientGone(): AbortSignal {
    if (this.abort === null) {
      this.abort = new AbortController();
      // Asked for after the client already left (its close came while the request was being read).
      if (this.res.closed && !this.res.writableFinished) this.abort.abort();
    }
    return this.abort.signal;
  }
}
