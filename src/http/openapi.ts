/**
 * The OpenAPI 3.1 document, generated once at start-up from the registry: one path per stored query
 * (by name), its declared parameters, the row schema from its `columns`, the error envelope and
 * both ways of presenting a token. Each caller gets the paths its token may call.
 */
import type { Principal } from '../auth/authenticator.ts';
import { ERRORS, type ErrorCode } from '../shared/errors.ts';
import { queryPath } from './listing.ts';
import { MAX_PARAM_CHARS, type ParamSpec } from '../query/params.ts';
import type { ColumnType, Registry, StoredQuery } from '../query/registry.ts';

type Json = Record<string, unknown>;

/** The document for one caller. */
export interface OpenApi {
  /** For a token: what it may call; null (PUBLIC_DOCS=on, no token): every stored query. */
  document(principal: Principal | null): Json;
}

/** Column types of a stored query's settings → JSON Schema of the encoded value (encode.ts). */
const COLUMN_SCHEMAS: Readonly<Record<ColumnType, Json>> = {
  string: { type: 'string' },
  text: { type: 'string' },
  timestamp: { type: 'string', format: 'date-time', description: 'RFC 3339 in UTC with six fractional digits.' },
  integer: { type: 'integer' },
  number: { type: 'number' },
  boolean: { type: 'boolean' },
  object: { type: 'object' },
  array: { type: 'array' },
  struct: { type: 'object' },
};

const STATUSES_OF_QUERIES = [400, 401, 403, 404, 405, 406, 413, 414, 429, 500, 503, 504] as const;

/** Build the document from the registry (call once at start-up). */
export function buildOpenApi(registry: Registry, version: string): OpenApi {
  const base = {
    openapi: '3.1.0',
    info: {
      title: 'Saved-query endpoints',
      version,
      description: 'Stored, parameterised SQL over log data, answered as JSON. Each stored query is also callable by its id at /api/endpoints/query/{id}.',
    },
    security: [{ apiKey: [] }, { bearer: [] }],
    components: components(),
  };
  const fixed = fixedPaths();
  const perQuery = registry.all.map((q) => [q, queryPathItem(q)] as const);
  return Object.freeze({
    document(principal: Principal | null): Json {
      const paths: Json = {};
      for (const [q, item] of perQuery) if (principal === null || principal.mayCall(q)) paths[queryPath(q)] = item;
      return { ...base, paths: { ...paths, ...fixed } };
    },
  });
}

function paramSchema(spec: ParamSpec): Json {
  const common = { maxLength: MAX_PARAM_CHARS, ...(spec.required ? { minLength: 1 } : {}) };
  switch (spec.type) {
    case 'enum':
      return { type: 'string', enum: [...spec.values] };
    case 'timestamp':
      return { type: 'string', format: 'date-time', ...common };
    case 'regex':
      return { type: 'string', ...common };
    case 'string':
      return { type: 'string', ...common };
    case 'integer':
    case 'number':
      return { type: spec.type, ...(spec.min === undefined ? {} : { minimum: spec.min }), ...(spec.max === undefined ? {} : { maximum: spec.max }) };
    case 'boolean':
      return { type: 'boolean' };
  }
}

function paramDescription(spec: ParamSpec): string {
  const own = spec.description ?? '';
  const note =
    spec.type === 'timestamp'
      ? 'ISO 8601; without an offset it is read as UTC.'
      : spec.type === 'regex'
        ? 'A PostgreSQL regular expression.'
        : '';
  return [own, note].filter((s) => s !== '').join(' ');
}

function queryPathItem(q: StoredQuery): Json {
  const queryParams: Json[] = q.paramOrder.map((name) => {
    const spec = q.params[name]!;
    return { name, in: 'query', required: spec.required, description: paramDescription(spec), schema: paramSchema(spec), ...(spec.example === undefined ? {} : { example: spec.example }) };
  });
  if (q.sandboxing) queryParams.push({ $ref: '#/components/parameters/Sql' });
  const parameters = [...queryParams, { $ref: '#/components/parameters/Format' }, { $ref: '#/components/parameters/RedactPii' }, { $ref: '#/components/parameters/IfNoneMatch' }];

  const row: Json = {
    type: 'object',
    properties: Object.fromEntries(Object.entries(q.columns).map(([col, type]) => [col, COLUMN_SCHEMAS[type]])),
    required: Object.keys(q.columns),
  };
  const rowNote = q.sandboxing ? ' With `sql`, rows have the columns of the caller\'s SELECT instead.' : '';
  const responses: Json = {
    '200': {
      description: `The rows (at most ${q.maxRows}).${rowNote}`,
      headers: {
        'X-Request-Id': { $ref: '#/components/headers/XRequestId' },
        'Cache-Status': { $ref: '#/components/headers/CacheStatus' },
        Age: { $ref: '#/components/headers/Age' },
        ETag: { $ref: '#/components/headers/ETag' },
        'Server-Timing': { $ref: '#/components/headers/ServerTiming' },
        'X-Result-Truncated': { $ref: '#/components/headers/XResultTruncated' },
        Vary: { $ref: '#/components/headers/Vary' },
      },
      content: {
        'application/json': { schema: { type: 'object', required: ['result'], properties: { result: { type: 'array', maxItems: q.maxRows, items: row } } } },
        'text/csv': { schema: { type: 'string', description: 'RFC 4180: a header row of column names, then one record per row (CRLF); strings as text, null empty, numbers, booleans and nested values as JSON text.' } },
        'application/x-ndjson': { schema: { type: 'string', description: 'One row per line, each the JSON object the JSON answer has.' } },
      },
    },
    '304': { description: 'Not modified: If-None-Match matched the current ETag.' },
    ...Object.fromEntries(STATUSES_OF_QUERIES.map((s) => [String(s), { $ref: `#/components/responses/Error${s}` }])),
  };
  const settings = [
    `Max rows ${q.maxRows}.`,
    q.cachingSeconds === null ? 'Not cached.' : `Cached for ${q.cachingSeconds} s${q.cacheWarmingSeconds === null ? '' : `, warmed every ${q.cacheWarmingSeconds} s`}.`,
    q.sandboxing ? 'Sandboxing enabled (`sql`).' : 'Sandboxing disabled.',
    q.redactPii ? 'PII always redacted.' : '',
  ].filter((s) => s !== '').join(' ');
  const description = `${q.description}\n\nStored query \`${q.name}\`, id \`${q.id}\`. ${settings}`.trim();
  const opId = q.name.replace(/[^A-Za-z0-9]+/g, '_');

  const bodyProps: Json = Object.fromEntries(q.paramOrder.map((name) => [name, { ...paramSchema(q.params[name]!), description: paramDescription(q.params[name]!) }]));
  if (q.sandboxing) bodyProps.sql = { type: 'string', description: 'One SELECT over the stored CTEs, replacing the final SELECT.' };
  bodyProps.format = { type: 'string', enum: ['json', 'csv', 'ndjson'], description: 'The answer\'s format (else `Accept` decides).' };
  const required = q.paramOrder.filter((n) => q.params[n]!.required);

  return {
    summary: q.name,
    get: { operationId: `get_${opId}`, summary: q.description, description, tags: ['stored queries'], parameters, responses },
    post: {
      operationId: `post_${opId}`,
      summary: `${q.description} (parameters in a JSON body)`,
      description: `${description}\n\nThe same parameters as GET, as string fields of a JSON object (for long \`sql\`).`,
      tags: ['stored queries'],
      parameters: [{ $ref: '#/components/parameters/RedactPii' }, { $ref: '#/components/parameters/IfNoneMatch' }],
      requestBody: {
        required: false,
        content: { 'application/json': { schema: { type: 'object', properties: bodyProps, ...(required.length > 0 ? { required } : {}) } } },
      },
      responses,
    },
  };
}

function fixedPaths(): Json {
  const json = (description: string, schema: Json = { type: 'object' }) => ({ description, content: { 'application/json': { schema } } });
  return {
    '/api/endpoints': {
      get: {
        operationId: 'list_endpoints',
        summary: 'The stored queries this token may call, with settings and declared parameters.',
        tags: ['service'],
        responses: {
          '200': json('The stored queries.', { type: 'object', required: ['result'], properties: { result: { type: 'array', items: { type: 'object' } } } }),
          '401': { $ref: '#/components/responses/Error401' },
        },
      },
    },
    '/openapi.json': {
      get: {
        operationId: 'openapi',
        summary: 'This document, with the stored queries this token may call.',
        tags: ['service'],
        responses: { '200': json('OpenAPI 3.1 document.'), '401': { $ref: '#/components/responses/Error401' } },
      },
    },
    '/health': {
      get: { operationId: 'health', summary: 'The process is up.', tags: ['service'], security: [], responses: { '200': json('Up.') } },
    },
    '/ready': {
      get: {
        operationId: 'ready',
        summary: 'The database answers.',
        tags: ['service'],
        security: [],
        responses: { '200': json('Ready.'), '503': { $ref: '#/components/responses/Error503' } },
      },
    },
    '/metrics': {
      get: {
        operationId: 'metrics',
        summary: 'Prometheus metrics (text format). Needs METRICS_TOKEN when the service sets one, else an access token that may call every stored query.',
        tags: ['service'],
        security: [{ apiKey: [] }, { bearer: [] }],
        responses: { '200': { description: 'Prometheus text exposition format 0.0.4.', content: { 'text/plain': { schema: { type: 'string' } } } }, '401': { $ref: '#/components/responses/Error401' } },
      },
    },
  };
}

function components(): Json {
  const codes = Object.keys(ERRORS) as ErrorCode[];
  const statuses = [...new Set(codes.map((c) => ERRORS[c].status))].sort((a, b) => a - b);
  const errorHeaders = (status: number): Json => ({
    'X-Request-Id': { $ref: '#/components/headers/XRequestId' },
    ...(status === 401 ? { 'WWW-Authenticate': { $ref: '#/components/headers/WWWAuthenticate' } } : {}),
    ...(status === 503 || status === 429 ? { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } } : {}),
    ...(status === 405 ? { Allow: { $ref: '#/components/headers/Allow' } } : {}),
  });
  const str = (description: string): Json => ({ description, schema: { type: 'string' } });
  return {
    securitySchemes: {
      apiKey: { type: 'apiKey', in: 'header', name: 'X-API-KEY', description: 'Access token.' },
      bearer: { type: 'http', scheme: 'bearer', description: 'Access token as `Authorization: Bearer <token>`.' },
    },
    schemas: {
      Error: {
        type: 'object',
        required: ['error'],
        properties: {
          error: {
            type: 'object',
            required: ['code', 'message'],
            properties: {
              code: { type: 'string', enum: codes },
              message: { type: 'string' },
              param: { type: 'string', description: 'The parameter at fault, when one is.' },
            },
          },
        },
      },
    },
    responses: Object.fromEntries(
      statuses.map((status) => {
        const here = codes.filter((c) => ERRORS[c].status === status);
        return [
          `Error${status}`,
          {
            description: here.map((c) => `\`${c}\`: ${ERRORS[c].message}`).join(' '),
            headers: errorHeaders(status),
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
          },
        ];
      }),
    ),
    parameters: {
      Sql: { name: 'sql', in: 'query', required: false, description: 'One SELECT over the stored CTEs, replacing the final SELECT (sandboxing).', schema: { type: 'string' } },
      RedactPii: { name: 'LF-ENDPOINT-REDACT-PII', in: 'header', required: false, description: '`true` (any case) redacts IP and e-mail addresses in the result.', schema: { type: 'string' } },
      Format: { name: 'format', in: 'query', required: false, description: 'The answer\'s format; without it, the `Accept` header decides (JSON by default).', schema: { type: 'string', enum: ['json', 'csv', 'ndjson'] } },
      IfNoneMatch: { name: 'If-None-Match', in: 'header', required: false, description: 'An ETag from an earlier answer; 304 when it still matches.', schema: { type: 'string' } },
    },
    headers: {
      XRequestId: str('Request id (the caller\'s X-Request-Id when sane, else generated).'),
      CacheStatus: str('RFC 9211 Cache-Status.'),
      Age: { description: 'Seconds since the cached result was produced (hits only).', schema: { type: 'integer' } },
      ETag: str('Strong validator of the body.'),
      ServerTiming: str('Database and total time.'),
      XResultTruncated: str('`true` when max rows cut the result.'),
      Vary: str('`Accept`: the format follows it when `format` is not given.'),
      RetryAfter: { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } },
      WWWAuthenticate: str('Bearer challenge.'),
      Allow: str('Methods this path answers.'),
    },
  };
}
