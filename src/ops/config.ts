import { readFileSync, statSync } from 'node:fs';
import { parseGrant, parseTokenFile, parseTokenList, TokenFormatError, type TokenGrant } from '../auth/access-tokens.ts';

/** Everything the service reads from its environment, validated once at start-up (DESIGN 7). */
export interface Config {
  port: number;
  host: string;
  databaseUrl: string | null;
  logSchema: string;
  /** Accepted tokens with their scopes; empty when none is configured (embedded mode then generates one). */
  accessTokens: readonly TokenGrant[];
  /** Token required by GET /metrics; null leaves it open. */
  metricsToken: TokenGrant | null;
  dataDir: string | null;
  statementTimeoutMs: number;
  cacheMaxEntries: number;
  cacheMaxBytes: number;
  corsOrigin: string;
  logLevel: LogLevel;
  poolMax: number;
  /** Requests allowed to wait for a pooled connection at once; more are answered 503 at once. */
  poolMaxWaiting: number;
  connectTimeoutMs: number;
  maxBodyBytes: number;
  maxUrlBytes: number;
  /** A client must send its request headers within this, and the whole request within requestTimeoutMs. */
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  /** Idle keep-alive connections are closed after this. */
  keepAliveTimeoutMs: number;
  /** On SIGTERM/SIGINT, in-flight requests get this long to finish before their connections are cut. */
  drainTimeoutMs: number;
  /** Directory of stored queries; null means the shipped sql/queries. */
  queriesDir: string | null;
  /** Rows the embedded store is seeded with on first start (edge rows; other sources proportional). */
  seedRows: number;
}

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** A bad environment value: start-up prints the message (naming the variable) and exits. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Env = Record<string, string | undefined>;

/** Read env → defaults → validate. Throws ConfigError naming the variable at fault. */
export function readConfig(env: Env = process.env): Config {
  const str = (name: string): string | undefined => {
    const v = env[name];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  };
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = str(name);
    if (raw === undefined) return fallback;
    if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
    const n = Number(raw);
    if (n < min || n > max) throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got ${raw}`);
    return n;
  };

  const databaseUrl = str('DATABASE_URL') ?? null;
  if (databaseUrl !== null && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must be a postgres:// or postgresql:// URL');
  }
  const logSchema = str('LOG_SCHEMA') ?? 'logs';
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(logSchema)) {
    throw new ConfigError(`LOG_SCHEMA must be a lowercase identifier ([a-z_][a-z0-9_]*), got "${logSchema}"`);
  }
  const logLevel = (str('LOG_LEVEL') ?? 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);

  const accessTokens = readTokens(str('ACCESS_TOKENS'), str('ACCESS_TOKENS_FILE'));
  if (databaseUrl !== null && accessTokens.length === 0) {
    throw new ConfigError('ACCESS_TOKENS or ACCESS_TOKENS_FILE must be set when DATABASE_URL is set');
  }
  const metricsRaw = str('METRICS_TOKEN');
  const metricsToken = metricsRaw === undefined ? null : tokenOrConfigError(() => parseGrant(metricsRaw, 'METRICS_TOKEN'));

  const headersTimeoutMs = int('HEADERS_TIMEOUT_MS', 10_000, 100, 600_000);
  const requestTimeoutMs = int('REQUEST_TIMEOUT_MS', 30_000, 100, 3_600_000);
  // node:http refuses a headers timeout longer than the whole-request timeout.
  if (headersTimeoutMs > requestTimeoutMs) {
    throw new ConfigError(`HEADERS_TIMEOUT_MS must not exceed REQUEST_TIMEOUT_MS (${requestTimeoutMs}), got ${headersTimeoutMs}`);
  }
  const queriesDir = str('QUERIES_DIR') ?? null;
  if (queriesDir !== null && !isDirectory(queriesDir)) throw new ConfigError(`QUERIES_DIR must be a directory of stored queries, got "${queriesDir}"`);

  return Object.freeze({
    port: int('PORT', 4000, 0, 65535),
    host: str('HOST') ?? '127.0.0.1',
    databaseUrl,
    logSchema,
    accessTokens,
    metricsToken,
    dataDir: str('DATA_DIR') ?? null,
    statementTimeoutMs: int('STATEMENT_TIMEOUT_MS', 15_000, 1, 3_600_000),
    cacheMaxEntries: int('CACHE_MAX_ENTRIES', 1_000, 1, 10_000_000),
    cacheMaxBytes: int('CACHE_MAX_BYTES', 64 * 1024 * 1024, 1024, 2 ** 40),
    corsOrigin: str('CORS_ORIGIN') ?? '*',
    logLevel,
    poolMax: int('POOL_MAX', 10, 1, 1000),
    poolMaxWaiting: int('POOL_MAX_WAITING', 100, 0, 100_000),
    connectTimeoutMs: int('CONNECT_TIMEOUT_MS', 2_000, 1, 600_000),
    maxBodyBytes: int('MAX_BODY_BYTES', 256 * 1024, 1024, 64 * 1024 * 1024),
    maxUrlBytes: int('MAX_URL_BYTES', 16 * 1024, 256, 1024 * 1024),
    headersTimeoutMs,
    requestTimeoutMs,
    keepAliveTimeoutMs: int('KEEP_ALIVE_TIMEOUT_MS', 5_000, 100, 600_000),
    drainTimeoutMs: int('DRAIN_TIMEOUT_MS', 8_000, 0, 600_000),
    queriesDir,
    seedRows: int('SEED_ROWS', 5_000, 0, 10_000_000),
  });
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
