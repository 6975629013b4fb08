import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { closest } from '../shared/did-you-mean.ts';
import { ConfigError } from '../shared/errors.ts';
import { parseGrant, parseTokenFile, parseTokenList, TokenFormatError, type TokenGrant } from '../auth/access-tokens.ts';

/** Everything the service reads from its environment, validated once at start-up. */
export interface Config {
  port: number;
  host: string;
  databaseUrl: string | null;
  /**
   * ClickHouse to read from instead of PostgreSQL (store/clickhouse/): an http(s):// server URL, or
   * `embedded` for ClickHouse in-process through chdb; null: PostgreSQL or the embedded PGlite.
   */
  clickhouseUrl: string | null;
  logSchema: string;
  /** Accepted tokens with their scopes; empty when none is configured (embedded mode then generates one). */
  accessTokens: readonly TokenGrant[];
  /** Token required by GET /metrics; null: any unscoped access token. */
  metricsToken: TokenGrant | null;
  dataDir: string | null;
  /** The embedded store's WASM memory cap, MiB (pglite-engine.ts). */
  embeddedMemoryMb: number;
  statementTimeoutMs: number;
  callerStatementTimeoutMs: number;
  /** Calls one token may have waiting for a connection (fair-queue.ts); one more is answered 429. */
  maxQueuedPerToken: number;
  /** Longest a call waits for a connection before 429 (its own load) or 503 (everyone's). */
  queueTimeoutMs: number;
  maxResultBytes: number;
  cacheMaxEntries: number;
  cacheMaxBytes: number;
  corsOrigin: string;
  /** GET /openapi.json without a token. */
  publicDocs: boolean;
  logLevel: LogLevel;
  poolMax: number;
  /** Calls all tokens together may have waiting for a connection; one more is answered 503 at once. */
  poolMaxWaiting: number;
  connectTimeoutMs: number;
  /** Keep stored queries' SQL prepared on each pg connection (off behind a pooler without prepared statements). */
  preparedStatements: boolean;
  maxBodyBytes: number;
  maxUrlBytes: number;
  /** A client must send its request headers within this, and the whole request within requestTimeoutMs. */
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  /** Idle keep-alive connections are closed after this. */
  keepAliveTimeoutMs: number;
  /** On SIGTERM/SIGINT, in-flight requests get this long to finish before their connections are cut. */
  drainTimeoutMs: number;
  /** Directory of stored queries (the shipped sql/queries unless QUERIES_DIR is set). */
  queriesDir: string;
  /** Rows the embedded store is seeded with on first start (edge rows; other sources proportional). */
  seedRows: number;
  /** `logflare`: serve Logflare's clients (BigQuery-dialect sql, its response shape; docs/logflare-compat.md). */
  compat: Compat | null;
  /** Tokens that may ingest (and nothing else); empty: ingest is off. */
  ingestTokens: readonly TokenGrant[];
  /** PostgreSQL the log writer connects to (a role that may only insert, and delete for retention); null: the embedded store. */
  ingestDatabaseUrl: string | null;
  ingestMaxBodyBytes: number;
  ingestPoolMax: number;
  /** Rows older than this many days are deleted in the background; null: kept. */
  retentionDays: number | null;
  /** What start-up warns about without stopping: variables that look like a misspelt setting. */
  warnings: readonly string[];
}

export const COMPAT_MODES = ['logflare'] as const;
export type Compat = (typeof COMPAT_MODES)[number];

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Directory of the stored queries shipped with the service. */
export const QUERIES_DIR = fileURLToPath(new URL('../../sql/queries/', import.meta.url));


/** One environment variable: its default as shown to operators, integer bounds if it is one, and what it does. */
interface Setting {
  readonly default: string;
  readonly range?: readonly [min: number, max: number];
  readonly help: string;
}

/**
 * Every setting the service reads, in one table: readConfig takes defaults and bounds from here,
 * and docs/configuration.md's table is this table (test/config.test.ts checks they agree).
 */
export const SETTINGS = Object.freeze({
  PORT: { default: '4000', range: [0, 65535], help: 'listen port (0 = any free port)' },
  HOST: { default: '127.0.0.1', help: 'listen address' },
  DATABASE_URL: { default: '–', help: 'PostgreSQL to read from; without it the embedded store is used' },
  CLICKHOUSE_URL: { default: '–', help: 'ClickHouse to read from instead of PostgreSQL: `http(s)://user:password@host:8123` (database `LOG_SCHEMA`), or `embedded` for ClickHouse in-process through the optional package `chdb` ([docs/clickhouse.md](clickhouse.md)); not with `DATABASE_URL`' },
  LOG_SCHEMA: { default: 'logs', help: 'schema holding the log tables (lowercase identifier)' },
  ACCESS_TOKENS: { default: '–', help: 'comma-separated tokens (at least 16 characters each, or `sha256:<hex>`); each may call every stored query' },
  ACCESS_TOKENS_FILE: { default: '–', help: 'file of tokens, optionally hashed and scoped to stored queries ([format](operating.md#access-tokens-and-scopes))' },
  METRICS_TOKEN: { default: '–', help: 'token `GET /metrics` requires (plain or `sha256:<hex>`); unset: any unscoped access token' },
  DATA_DIR: { default: '–', help: 'directory of the embedded store; unset: a temporary directory, removed when the service stops' },
  EMBEDDED_MEMORY_MB: { default: '256', range: [160, 2048], help: 'memory the embedded store\'s PostgreSQL may use (MiB of WASM memory, 128 of them from the start); a statement needing more fails with 400 `resource_limit`' },
  SEED_ROWS: { default: '5000', range: [0, 10_000_000], help: 'edge rows of demo data written to an empty embedded store (others proportional)' },
  STATEMENT_TIMEOUT_MS: { default: '15000', range: [1, 3_600_000], help: 'per statement, enforced by PostgreSQL (the embedded engine: by replacing its worker)' },
  CALLER_STATEMENT_TIMEOUT_MS: { default: '5000', range: [1, 3_600_000], help: 'statement timeout for calls with caller `sql` or a regular-expression parameter (at most `STATEMENT_TIMEOUT_MS`)' },
  MAX_QUEUED_PER_TOKEN: { default: 'the larger of 100 and 4 × `POOL_MAX`', range: [0, 100_000], help: 'calls one token may have waiting for a connection (uncached calls, cache misses, ingest batches); one more is answered 429 with `Retry-After` ([queueing](../README.md#limits-and-fair-queueing))' },
  QUEUE_TIMEOUT_MS: { default: '10000', range: [1, 600_000], help: 'longest a call waits for a connection: then 429 if its token\'s own statements fill its share, else 503 `overloaded`' },
  MAX_RESULT_BYTES: { default: '16777216', range: [1024, 2 ** 31 - 1], help: 'largest result a call may produce (400 `result_too_large` beyond)' },
  POOL_MAX: { default: '10', range: [1, 1000], help: 'connections to `DATABASE_URL`' },
  POOL_MAX_WAITING: { default: '1000', range: [0, 100_000], help: 'calls all tokens together may have waiting for a connection; one more is answered 503 `overloaded` at once (0: never wait)' },
  PREPARED_STATEMENTS: { default: '`on`', help: '`on`: each stored query\'s own SQL is prepared once per connection to `DATABASE_URL` and not parsed again on every uncached call (caller `sql` never is); `off` behind a pooler in transaction mode without prepared-statement support (pgbouncer before 1.21)' },
  CONNECT_TIMEOUT_MS: { default: '2000', range: [1, 600_000], help: 'wait for a connection (new, or from a busy pool) before answering 503' },
  CACHE_MAX_ENTRIES: { default: '1000', range: [1, 10_000_000], help: 'result cache bound (entries)' },
  CACHE_MAX_BYTES: { default: '67108864', range: [1024, 2 ** 40], help: 'result cache bound (bytes of encoded responses)' },
  PUBLIC_DOCS: { default: '`off`', help: '`on`: `GET /openapi.json` answers without a token (every stored query\'s description); `off`: it needs a token and lists what that token may call' },
  CORS_ORIGIN: { default: '*', help: '`Access-Control-Allow-Origin`' },
  MAX_BODY_BYTES: { default: '262144', range: [1024, 64 * 1024 * 1024], help: 'POST body limit (413 beyond)' },
  MAX_URL_BYTES: { default: '16384', range: [256, 1024 * 1024], help: 'request URL limit (414 beyond)' },
  HEADERS_TIMEOUT_MS: { default: '10000', range: [100, 600_000], help: 'a client must send its request headers within this (408 and close otherwise)' },
  REQUEST_TIMEOUT_MS: { default: '30000', range: [100, 3_600_000], help: '… and its whole request, body included (not the response); at least `HEADERS_TIMEOUT_MS`' },
  KEEP_ALIVE_TIMEOUT_MS: { default: '5000', range: [100, 600_000], help: 'idle keep-alive connections are closed after this (node adds a fixed 1 s)' },
  DRAIN_TIMEOUT_MS: { default: '8000', range: [0, 600_000], help: 'on SIGTERM/SIGINT, how long in-flight requests may still take' },
  QUERIES_DIR: { default: '`sql/queries`', help: 'directory of stored queries (`<name>.json` + `<name>.sql`)' },
  LOG_LEVEL: { default: 'info', help: '`debug`, `info`, `warn`, `error`, `silent` (JSON lines)' },
  INGEST_TOKENS: { default: '–', help: 'comma-separated tokens (same forms as `ACCESS_TOKENS`) that may ingest logs at `POST /api/logs` and nothing else; unset: ingest is off ([ingest](../README.md#ingest-logs-from-vector))' },
  INGEST_DATABASE_URL: { default: '–', help: 'PostgreSQL the ingest writes through, as a role that may only insert into (and, with `RETENTION_DAYS`, delete from) the log tables; required with `DATABASE_URL` and `INGEST_TOKENS`. With a `CLICKHOUSE_URL` server: the `http(s)://` URL of a ClickHouse user that may only insert' },
  INGEST_MAX_BODY_BYTES: { default: '12000000', range: [1024, 256 * 1024 * 1024], help: 'ingest request body limit, after decompression (413 beyond)' },
  INGEST_POOL_MAX: { default: '2', range: [1, 100], help: 'connections to `INGEST_DATABASE_URL`' },
  RETENTION_DAYS: { default: '–', range: [1, 36_500], help: 'delete log rows older than this many days, in the background through the ingest connection; unset: keep everything' },
  COMPAT: { default: '–', help: '`logflare`: answer as Logflare does for Supabase Studio and its other clients (BigQuery-dialect `sql`, Logflare\'s response shape, Studio\'s intervals; [details](../README.md#use-it-with-supabase-studio))' },
} satisfies Record<string, Setting>);

export type SettingName = keyof typeof SETTINGS;

/** The configuration table as Markdown (docs/configuration.md's copy is checked against it). */
export function settingsTable(): string {
  const rows = Object.entries(SETTINGS).map(([name, s]: [string, Setting]) => `| \`${name}\` | ${s.default} | ${s.help} |`);
  return ['| variable | default | meaning |', '|---|---|---|', ...rows].join('\n');
}

type Env = Record<string, string | undefined>;

/** Read env → defaults → validate. Throws ConfigError naming the variable at fault. */
export function readConfig(env: Env = process.env): Config {
  const str = (name: SettingName): string | undefined => {
    const v = env[name];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  };
  /** An integer setting; `derived` is its default when that depends on other settings. */
  const int = (name: SettingName, derived?: number): number => {
    const setting: Setting = SETTINGS[name];
    const [min, max] = setting.range ?? [0, 0];
    const raw = str(name) ?? (derived === undefined ? setting.default : String(derived));
    if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
    const n = Number(raw);
    if (n < min || n > max) throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got ${raw}`);
    return n;
  };

  const databaseUrl = str('DATABASE_URL') ?? null;
  if (databaseUrl !== null && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must be a postgres:// or postgresql:// URL');
  }
  const clickhouseUrl = str('CLICKHOUSE_URL') ?? null;
  if (clickhouseUrl !== null && clickhouseUrl !== 'embedded' && !/^https?:\/\/[^/]/.test(clickhouseUrl)) {
    throw new ConfigError(`CLICKHOUSE_URL must be an http:// or https:// URL or "embedded", got "${clickhouseUrl}"`);
  }
  if (clickhouseUrl !== null && databaseUrl !== null) throw new ConfigError('DATABASE_URL and CLICKHOUSE_URL are both set: the service reads one store; unset one');
  const logSchema = str('LOG_SCHEMA') ?? SETTINGS.LOG_SCHEMA.default;
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(logSchema)) {
    throw new ConfigError(`LOG_SCHEMA must be a lowercase identifier ([a-z_][a-z0-9_]*), got "${logSchema}"`);
  }
  const onOff = (name: 'PREPARED_STATEMENTS' | 'PUBLIC_DOCS', fallback: 'on' | 'off'): boolean => {
    const value = str(name) ?? fallback;
    if (value !== 'on' && value !== 'off') throw new ConfigError(`${name} must be on or off, got "${value}"`);
    return value === 'on';
  };
  const compat = (str('COMPAT') ?? null) as Compat | null;
  if (compat !== null && !COMPAT_MODES.includes(compat)) throw new ConfigError(`COMPAT must be ${COMPAT_MODES.join(' or ')} (or unset), got "${compat}"`);
  const logLevel = (str('LOG_LEVEL') ?? SETTINGS.LOG_LEVEL.default) as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);

  const accessTokens = readTokens(str('ACCESS_TOKENS'), str('ACCESS_TOKENS_FILE'));
  const ingestRaw = str('INGEST_TOKENS');
  const ingestTokens = ingestRaw === undefined ? [] : tokenOrConfigError(() => parseTokenList(ingestRaw, 'INGEST_TOKENS'));
  // One token, one kind: a token that both queries and ingests would make the read-only role's token a writer's.
  for (const g of ingestTokens) {
    const same = accessTokens.find((a) => a.digest.equals(g.digest));
    if (same !== undefined) throw new ConfigError(`${g.source}: the same token is an access token (${same.source}); ingest and access tokens must differ`);
  }
  const ingestDatabaseUrl = str('INGEST_DATABASE_URL') ?? null;
  const clickhouseServer = clickhouseUrl !== null && clickhouseUrl !== 'embedded';
  if (ingestDatabaseUrl !== null && clickhouseServer && !/^https?:\/\/[^/]/.test(ingestDatabaseUrl)) throw new ConfigError('INGEST_DATABASE_URL must be an http:// or https:// URL with CLICKHOUSE_URL: the ClickHouse user the ingest inserts as');
  if (ingestDatabaseUrl !== null && !clickhouseServer && !/^postgres(ql)?:\/\//.test(ingestDatabaseUrl)) throw new ConfigError('INGEST_DATABASE_URL must be a postgres:// or postgresql:// URL');
  if (ingestDatabaseUrl !== null && databaseUrl === null && !clickhouseServer) throw new ConfigError('INGEST_DATABASE_URL needs DATABASE_URL (or CLICKHOUSE_URL naming a server): without it, ingest writes to the embedded store');
  const retentionRaw = str('RETENTION_DAYS');
  const retentionDays = retentionRaw === undefined ? null : int('RETENTION_DAYS');
  if (databaseUrl !== null && ingestDatabaseUrl === null && (ingestTokens.length > 0 || retentionDays !== null)) {
    throw new ConfigError(`INGEST_DATABASE_URL must be set with DATABASE_URL when ${ingestTokens.length > 0 ? 'INGEST_TOKENS' : 'RETENTION_DAYS'} is set: writes go through a role of their own (README, "Ingest logs from Vector")`);
  }
  if (clickhouseServer && ingestDatabaseUrl === null && ingestTokens.length > 0) {
    throw new ConfigError('INGEST_DATABASE_URL must be set with a CLICKHOUSE_URL server when INGEST_TOKENS is set: ingest inserts as a ClickHouse user of its own (docs/clickhouse.md)');
  }
  if (clickhouseUrl !== null && clickhouseUrl !== 'embedded' && accessTokens.length === 0) {
    throw new ConfigError('ACCESS_TOKENS or ACCESS_TOKENS_FILE must be set when CLICKHOUSE_URL names a server');
  }
  if (databaseUrl !== null && accessTokens.length === 0) {
    throw new ConfigError('ACCESS_TOKENS or ACCESS_TOKENS_FILE must be set when DATABASE_URL is set');
  }
  const metricsRaw = str('METRICS_TOKEN');
  const metricsToken = metricsRaw === undefined ? null : tokenOrConfigError(() => parseGrant(metricsRaw, 'METRICS_TOKEN'));

  const headersTimeoutMs = int('HEADERS_TIMEOUT_MS');
  const requestTimeoutMs = int('REQUEST_TIMEOUT_MS');
  // node:http refuses a headers timeout longer than the whole-request timeout.
  if (headersTimeoutMs > requestTimeoutMs) {
    throw new ConfigError(`HEADERS_TIMEOUT_MS must not exceed REQUEST_TIMEOUT_MS (${requestTimeoutMs}), got ${headersTimeoutMs}`);
  }
  const statementTimeoutMs = int('STATEMENT_TIMEOUT_MS');
  const poolMax = int('POOL_MAX');
  const queriesDir = str('QUERIES_DIR') ?? QUERIES_DIR;
  if (!isDirectory(queriesDir)) throw new ConfigError(`QUERIES_DIR must be a directory of stored queries, got "${queriesDir}"`);

  return Object.freeze({
    port: int('PORT'),
    host: str('HOST') ?? SETTINGS.HOST.default,
    databaseUrl,
    clickhouseUrl,
    logSchema,
    accessTokens,
    metricsToken,
    dataDir: str('DATA_DIR') ?? null,
    embeddedMemoryMb: int('EMBEDDED_MEMORY_MB'),
    statementTimeoutMs,
    callerStatementTimeoutMs: Math.min(int('CALLER_STATEMENT_TIMEOUT_MS'), statementTimeoutMs),
    maxQueuedPerToken: int('MAX_QUEUED_PER_TOKEN', Math.max(100, 4 * poolMax)),
    queueTimeoutMs: int('QUEUE_TIMEOUT_MS'),
    maxResultBytes: int('MAX_RESULT_BYTES'),
    cacheMaxEntries: int('CACHE_MAX_ENTRIES'),
    cacheMaxBytes: int('CACHE_MAX_BYTES'),
    corsOrigin: str('CORS_ORIGIN') ?? SETTINGS.CORS_ORIGIN.default,
    publicDocs: onOff('PUBLIC_DOCS', 'off'),
    logLevel,
    poolMax,
    poolMaxWaiting: int('POOL_MAX_WAITING'),
    connectTimeoutMs: int('CONNECT_TIMEOUT_MS'),
    preparedStatements: onOff('PREPARED_STATEMENTS', 'on'),
    maxBodyBytes: int('MAX_BODY_BYTES'),
    maxUrlBytes: int('MAX_URL_BYTES'),
    headersTimeoutMs,
    requestTimeoutMs,
    keepAliveTimeoutMs: int('KEEP_ALIVE_TIMEOUT_MS'),
    drainTimeoutMs: int('DRAIN_TIMEOUT_MS'),
    queriesDir,
    seedRows: int('SEED_ROWS'),
    compat,
    ingestTokens: Object.freeze(ingestTokens),
    ingestDatabaseUrl,
    ingestMaxBodyBytes: int('INGEST_MAX_BODY_BYTES'),
    ingestPoolMax: int('INGEST_POOL_MAX'),
    retentionDays,
    warnings: Object.freeze(misspeltSettings(env)),
  });
}

/** Settings of earlier versions, with what replaced them. */
const REMOVED_SETTINGS: Readonly<Record<string, string>> = Object.freeze({
  MAX_STATEMENTS_PER_TOKEN: 'calls beyond a token\'s share now wait in its queue (MAX_QUEUED_PER_TOKEN, QUEUE_TIMEOUT_MS) instead of being refused',
});

/**
 * Variables within two edits of a setting (one for short names) that are not settings themselves:
 * `DATABSE_URL=…` would otherwise quietly start the demo store. A warning, not an error: the
 * environment is shared with everything else in the process's world.
 */
function misspeltSettings(env: Env): string[] {
  const known = Object.keys(SETTINGS);
  const warnings: string[] = [];
  for (const name of Object.keys(env).sort()) {
    if (name in SETTINGS) continue;
    const removed = REMOVED_SETTINGS[name];
    if (removed !== undefined) {
      warnings.push(`environment variable ${name} is no longer a setting and is ignored: ${removed}`);
      continue;
    }
    const near = closest(name, known);
    if (near !== undefined) warnings.push(`environment variable ${name} is not a setting and is ignored; did you mean ${near}?`);
  }
  return warnings;
}

function readTokens(list: string | undefined, file: string | undefined): TokenGrant[] {
  const grants: TokenGrant[] = [];
  if (list !== undefined) grants.push(...tokenOrConfigError(() => parseTokenList(list)));
  if (file !== undefined) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw new ConfigError(`ACCESS_TOKENS_FILE cannot be read: ${(err as Error).message}`);
    }
    grants.push(...tokenOrConfigError(() => parseTokenFile(text)));
  }
  // One token, one scope: a token listed twice (plain and hashed, or in both places) is ambiguous.
  grants.forEach((g, i) => {
    const first = grants.findIndex((other) => other.digest.equals(g.digest));
    if (first !== i) throw new ConfigError(`${g.source}: the same token is already listed (${grants[first]!.source})`);
  });
  return grants;
}

function tokenOrConfigError<T>(parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (err instanceof TokenFormatError) throw new ConfigError(err.message);
    throw err;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
