/**
 * Every error the service answers with, declared once (docs/http-api.md): stable code → HTTP status and
 * the generic message used when no specific one is given.
 */
export const ERRORS = {
  unauthorized: { status: 401, message: 'A valid access token is required (X-API-KEY or Authorization: Bearer).' },
  forbidden: { status: 403, message: 'This access token may not call that stored query.' },
  not_found: { status: 404, message: 'Not found.' },
  method_not_allowed: { status: 405, message: 'Method not allowed.' },
  // Malformed HTTP answered before the app sees a request (server.ts 'clientError').
  bad_request: { status: 400, message: 'The request is not valid HTTP.' },
  request_timeout: { status: 408, message: 'The request was not received in time.' },
  header_too_large: { status: 431, message: 'The request headers are too large.' },
  missing_parameter: { status: 400, message: 'A required parameter is missing.' },
  invalid_parameter: { status: 400, message: 'A parameter has an invalid value.' },
  unknown_parameter: { status: 400, message: 'The stored query has no parameter of that name.' },
  invalid_sql: { status: 400, message: 'The sql parameter was rejected.' },
  sandbox_disabled: { status: 400, message: 'This stored query does not accept sql: sandboxing is disabled.' },
  query_error: { status: 400, message: 'The database rejected the query.' },
  resource_limit: { status: 400, message: 'The query exceeded a database resource limit (memory, temporary files, value or row size).' },
  result_too_large: { status: 400, message: 'The result is larger than MAX_RESULT_BYTES; select fewer or smaller values.' },
  too_many_requests: { status: 429, message: 'This access token already has as many calls waiting as it may; retry later.' },
  not_acceptable: { status: 406, message: 'The requested format is not one this service answers in (json, csv, ndjson).' },
  payload_too_large: { status: 413, message: 'The request body or query string is too large.' },
  unsupported_media_type: { status: 415, message: 'The request body\'s type or encoding is not accepted.' },
  invalid_body: { status: 400, message: 'The request body could not be read as events.' },
  events_rejected: { status: 406, message: 'Some events were rejected; the others were stored.' },
  not_implemented: { status: 501, message: 'Not supported by this service.' },
  uri_too_long: { status: 414, message: 'The request URL is too long.' },
  query_timeout: { status: 504, message: 'The query exceeded the statement timeout.' },
  database_unavailable: { status: 503, message: 'The database is unavailable; retry shortly.' },
  overloaded: { status: 503, message: 'Every database connection is busy and too many calls are waiting; retry shortly.' },
  store_not_ready: { status: 503, message: 'The log store does not have what this stored query reads.' },
  internal: { status: 500, message: 'Internal error.' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERRORS;

/** An error that maps to the error envelope; anything else thrown becomes `internal`. */
export class HttpError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly param: string | undefined;
  readonly headers: Readonly<Record<string, string>>;
  /** Figures the envelope carries beside code and message (an ingest batch's counts). */
  readonly details: Readonly<Record<string, number>>;

  constructor(code: ErrorCode, message?: string, options: { param?: string; headers?: Record<string, string>; details?: Record<string, number>; cause?: unknown } = {}) {
    super(message ?? ERRORS[code].message, { cause: options.cause });
    this.name = 'HttpError';
    this.code = code;
    this.status = ERRORS[code].status;
    this.param = options.param;
    this.headers = options.headers ?? {};
    this.details = options.details ?? {};
  }

  /** The JSON error envelope (docs/http-api.md). */
  toBody(): { error: { code: ErrorCode; message: string; param?: string } } {
    const error: { code: ErrorCode; message: string; param?: string } = { code: this.code, message: this.message };
    if (this.param !== undefined) error.param = this.param;
    return { error: { ...error, ...this.details } };
  }
}

/** A bad environment value or setting: start-up prints the message (naming the variable) and exits with 2. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
