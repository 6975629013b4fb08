import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { CachePolicy } from './cache/result-cache.ts';
import { limitSql } from './max-rows.ts';
import { PARAM_TYPES, type ParamSpec } from './params.ts';
import { prepareStored, type SandboxTemplate } from './sandbox/sandbox.ts';
import { bindSql } from './sql-bind.ts';

/** A stored query as loaded, validated and compiled at start-up. Frozen. */
export interface StoredQuery {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly maxRows: number;
  /** Result reuse in seconds; null when caching is disabled. */
  readonly cachingSeconds: number | null;
  readonly cacheWarmingSeconds: number | null;
  /** The cache settings in the cache's terms; null when caching is disabled. */
  readonly cachePolicy: CachePolicy | null;
  readonly sandboxing: boolean;
  /** What composing caller SQL needs from the statement; null when sandboxing is disabled. */
  readonly sandbox: SandboxTemplate | null;
  readonly redactPii: boolean;
  readonly params: Readonly<Record<string, ParamSpec>>;
  /** Declared parameter names in declaration order (the canonical order of cache keys). */
  readonly paramOrder: readonly string[];
  /** The parameter a database "invalid regular expression" error is attributed to, if any. */
  readonly regexParam: string | undefined;
  /** Result columns and their types, for the listing and OpenAPI. */
  readonly columns: Readonly<Record<string, string>>;
  /** The stored statement with `@name` turned into `$n`. */
  readonly boundSql: string;
  /** `bindOrder[i]` is the parameter bound to `$(i+1)`. */
  readonly bindOrder: readonly string[];
  /** boundSql wrapped to stop after maxRows + 1 rows: what the request path runs. */
  readonly limitedSql: string;
  /** Settings file the definition came from (for start-up messages). */
  readonly file: string;
}

/** Stored queries by id and by name. */
export interface Registry {
  readonly all: readonly StoredQuery[];
  /** Names match exactly; ids match case-insensitively. A name that looks like a UUID is still a name. */
  lookup(idOrName: string): StoredQuery | undefined;
}

/** A stored-query definition that cannot be served; start-up stops with this message. */
export class DefinitionError extends Error {
  override name = 'DefinitionError';
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*(?:\.[a-z0-9]+(?:-[a-z0-9]+)*)*$/;
const PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Parameter names with a meaning of their own in a request. */
const RESERVED_PARAMS = new Set(['sql']);

/** Load every `<name>.json` + `<name>.sql` pair in `dir`, validate and compile them (after initSandbox()). */
export function loadRegistry(dir: string): Registry {
  const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
  const all = files.map((f) => loadOne(join(dir, f)));
  if (all.length === 0) throw new DefinitionError(`${dir}: no stored queries (*.json with a matching *.sql) found`);
  const byId = new Map<string, StoredQuery>();
  const byName = new Map<string, StoredQuery>();
  for (const q of all) {
    if (byId.has(q.id)) throw new DefinitionError(`${q.file}: id ${q.id} is also used by ${byId.get(q.id)!.file}`);
    if (byName.has(q.name)) throw new DefinitionError(`${q.file}: name ${q.name} is also used by ${byName.get(q.name)!.file}`);
    byId.set(q.id, q);
    byName.set(q.name, q);
  }
  return Object.freeze({
    all: Object.freeze(all),
    lookup: (idOrName: string) => byName.get(idOrName) ?? byId.get(idOrName.toLowerCase()),
  });
}

function loadOne(file: string): StoredQuery {
  const fail = (problem: string): never => {
    throw new DefinitionError(`${file}: ${problem}`);
  };
  let def: Record<string, unknown>;
  try {
    def = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch (err) {
    return fail(`not valid JSON (${(err as Error).message})`);
  }
  if (typeof def !== 'object' || def === null || Array.isArray(def)) return fail('must be a JSON object');

  const id = def.id, name = def.name;
  if (typeof id !== 'string' || !UUID.test(id)) return fail('"id" must be a lowercase UUID');
  if (typeof name !== 'string' || !NAME.test(name)) return fail('"name" must be dotted lowercase words (hyphens allowed)');
  if (basename(file, '.json') !== name) fail(`file name must be ${name}.json`);
  const maxRows = def.maxRows;
  if (!Number.isInteger(maxRows) || (maxRows as number) < 1 || (maxRows as number) > 1_000_000) fail('"maxRows" must be an integer from 1 to 1000000');
  const cachingSeconds = optionalSeconds(def.cachingSeconds, 'cachingSeconds', fail);
  const cacheWarmingSeconds = optionalSeconds(def.cacheWarmingSeconds, 'cacheWarmingSeconds', fail);
  if (cacheWarmingSeconds !== null && (cachingSeconds === null || cacheWarmingSeconds >= cachingSeconds)) {
    fail('"cacheWarmingSeconds" needs caching enabled and must be shorter than "cachingSeconds"');
  }
  if (typeof def.sandboxing !== 'boolean') fail('"sandboxing" must be true or false');
  if (typeof def.redactPii !== 'boolean') fail('"redactPii" must be true or false');
  const params = parseParams(def.params, fail);
  const columns = def.columns ?? {};
  if (typeof columns !== 'object' || columns === null || Array.isArray(columns)) fail('"columns" must be an object');

  const sqlFile = file.replace(/\.json$/, '.sql');
  let text: string;
  try {
    text = readFileSync(sqlFile, 'utf8');
  } catch {
    return fail(`missing its statement ${basename(sqlFile)}`);
  }
  let bound: { sql: string; names: readonly string[] };
  try {
    bound = bindSql(text.trim().replace(/;\s*$/, ''));
  } catch (err) {
    return fail(`${basename(sqlFile)}: ${(err as Error).message}`);
  }
  let sandbox: SandboxTemplate | null = null;
  if (def.sandboxing === true) {
    try {
      sandbox = prepareStored(bound.sql);
    } catch (err) {
      fail(`sandboxing is enabled but ${basename(sqlFile)} cannot be sandboxed: ${(err as Error).message}`);
    }
  }
  const declared = Object.keys(params);
  const undeclared = bound.names.filter((n) => !(n in params));
  if (undeclared.length > 0) fail(`${basename(sqlFile)} uses undeclared parameter(s) ${undeclared.map((n) => '@' + n).join(', ')}`);
  const unused = declared.filter((n) => !bound.names.includes(n));
  if (unused.length > 0) fail(`declares parameter(s) never used in ${basename(sqlFile)}: ${unused.join(', ')}`);

  return Object.freeze({
    id,
    name,
    description: typeof def.description === 'string' ? def.description : '',
    maxRows: maxRows as number,
    cachingSeconds,
    cacheWarmingSeconds,
    cachePolicy:
      cachingSeconds === null
        ? null
        : Object.freeze({ ttlMs: cachingSeconds * 1000, warmIntervalMs: cacheWarmingSeconds === null ? null : cacheWarmingSeconds * 1000 }),
    sandboxing: def.sandboxing as boolean,
    sandbox,
    redactPii: def.redactPii as boolean,
    params,
    paramOrder: Object.freeze(declared),
    regexParam: declared.find((n) => params[n]?.type === 'regex'),
    columns: Object.freeze({ ...(columns as Record<string, string>) }),
    boundSql: bound.sql,
    bindOrder: Object.freeze([...bound.names]),
    limitedSql: limitSql(bound.sql, maxRows as number),
    file,
  });
}

function optionalSeconds(v: unknown, key: string, fail: (p: string) => never): number | null {
  if (v === null || v === undefined) return null;
  if (!Number.isInteger(v) || (v as number) < 1) fail(`"${key}" must be a positive integer (seconds) or null`);
  return v as number;
}

function parseParams(raw: unknown, fail: (p: string) => never): Readonly<Record<string, ParamSpec>> {
  if (raw === undefined) return Object.freeze({});
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) fail('"params" must be an object');
  const out: Record<string, ParamSpec> = {};
  for (const [name, spec] of Object.entries(raw as Record<string, Record<string, unknown>>)) {
    if (!PARAM_NAME.test(name)) fail(`parameter name "${name}" must match [A-Za-z_][A-Za-z0-9_]*`);
    if (RESERVED_PARAMS.has(name)) fail(`parameter name "${name}" is reserved`);
    if (typeof spec !== 'object' || spec === null) fail(`parameter "${name}" must be an object`);
    const type = spec.type;
    if (!PARAM_TYPES.includes(type as (typeof PARAM_TYPES)[number])) fail(`parameter "${name}": "type" must be one of ${PARAM_TYPES.join(', ')}`);
    if (typeof spec.required !== 'boolean') fail(`parameter "${name}": "required" must be true or false`);
    const description = typeof spec.description === 'string' ? spec.description : undefined;
    const base = { required: spec.required as boolean, ...(description === undefined ? {} : { description }) };
    if (type === 'enum') {
      const values = spec.values;
      if (!Array.isArray(values) || values.length === 0 || !values.every((v) => typeof v === 'string' && v !== '')) {
        fail(`parameter "${name}": enum "values" must be a non-empty array of strings`);
      }
      out[name] = Object.freeze({ type, ...base, values: Object.freeze([...(values as string[])]) });
    } else {
      out[name] = Object.freeze({ type: type as 'string' | 'regex' | 'timestamp', ...base });
    }
  }
  return Object.freeze(out);
}
