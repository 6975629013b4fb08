import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';

/**
 * One request as it goes through the HTTP layer: the node objects, the headers every response
 * carries, and what the request log and metrics will report, filled in as the request goes along.
 */
export class RequestContext {
  /** Route kind once matched ('none' until then). */
  route = 'none';
  /** Name of the stored query once resolved; never the raw path segment (unbounded, caller-chosen). */
  query = '';
  rows: number | undefined;
  cache: string | undefined;
  code: string | undefined;
  private abort: AbortController | null = null;

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly requestId: string,
    readonly started: number,
    /** CORS and X-Request-Id: on every response, errors included. */
    readonly headers: OutgoingHttpHeaders,
  ) {}

  /**
   * A signal that fires if the response closes before it is complete (the client went away).
   * Created on first ask: the cached path never pays for an AbortController and a close listener.
   */
  clientGone(): AbortSignal {
    if (this.abort === null) {
      const abort = new AbortController();
      this.abort = abort;
      this.res.once('close', () => {
        if (!this.res.writableFinished) abort.abort();
      });
    }
    return this.abort.signal;
  }
}
