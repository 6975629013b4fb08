import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { cachePolicy, type CachePolicy } from './cache/cache-policy.ts';
import { rowLimit, type RowLimit } from './max-rows.ts';
import { closest } from '../shared/did-you-mean.ts';
import { parseParamDeclarations, REQUEST_KEYS, sampleValue, unknownParamPolicy, type ParamSpec, type UnknownParams } from './params.ts';
import type { SqlParser } from '../sql/sandbox/sql-parser.ts';
import { COMPAT_MODES, type Compat } from '../process/config.ts';
import { prepareSandbox, statementFacts, type SandboxTemplate, type StatementFacts } from '../sql/sandbox/stored-statement.ts';
import { bindSql, type BoundSql } from '../sql/binding/sql-bind.ts';
import { splitClickHouseWith, withOnlyWhatIsRead, type ClickHouseWith } from '../sql/clickhouse/with-clause.ts';
import { composeSandboxed } from '../sql/sandbox/compose.ts';
import { clickhouseSandbox, storedCteColumns } from '../sql/clickhouse/compose-clickhouse.ts';
import { quoteIdent, STORE_TABLES } from '../store/schema.ts';
import type { StoreProbe } from '../store/store-check.ts';
import { randomUUID } from 'node:crypto';
import type { ResultColumns, StoreDialect } from '../store/engine.ts';
import { STORE_BINDINGS, type StoreBinding } from '../sql/binding/store-binding.ts';

/** A stored query as loaded, validated and compiled at start-up. Frozen. */
export interface StoredQuery {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  /** The settings as written (for the listing and OpenAPI); the request path asks rowLimit and cachePolicy. */
  readonly maxRows: number;
  readonly cachingSeconds: number | null;
  readonly cacheWarmingSeconds: number | null;
  /** Max rows as a policy: how statements and results are held to it. */
  readonly rowLimit: RowLimit;
  /** Result reuse and warming; `cached: false` when caching is disabled. */
  readonly cachePolicy: CachePolicy;
  readonly sandboxing: boolean;
  /** What composing caller SQL needs from the statement; null when sandboxing is disabled. */
  readonly sandbox: SandboxTemplate | null;
  readonly redactPii: boolean;
  readonly params: Readonly<Record<string, ParamSpec>>;
  /** What a parameter it does not declare gets (params.ts decides). */
  readonly unknownParams: UnknownParams;
  /** Request keys besides its parameters (`sql` when sandboxed). */
  readonly requestKeys: readonly string[];
  /** Declared parameter names in declaration order (the canonical order of cache keys). */
  readonly paramOrder: readonly string[];
  /** The parameter a database "invalid regular expression" error is attributed to, if any. */
  readonly regexParam: string | undefined;
  /** The most rows a call without caller sql returns: maxRows, or the statement's own literal LIMIT when lower. */
  readonly rowsPerCall: number;
  /** Parameters a data error that quotes no value is attributed to, by SQLSTATE (a negative LIMIT or OFFSET). */
  readonly sqlstateParams: Readonly<Record<string, string>>;
  /** Result columns and their types, for the listing and OpenAPI. */
  readonly columns: Readonly<Record<string, ColumnType>>;
  /** The stored statement in the store's dialect with `@name` turned into `$n` (or `{pN:Type}`). */
  readonly boundSql: string;
  /** `bindOrder[i]` is the parameter bound to `$(i+1)`. */
  readonly bindOrder: readonly string[];
  /** The positional values of a call's validated parameters, spelt as the store reads them. */
  readonly bindValues: (values: Readonly<Record<string, string | null>>) => (string | null)[];
  /** Declared object and array columns: JSON text the engine splices as JSON (ClickHouse cannot tell by type). */
  readonly resultColumns: ResultColumns;
  /** Declared struct columns: JSON objects the statement writes as text, sent as written (struct-columns.ts). */
  readonly structColumns: readonly string[];
  /**
   * What the request path runs without caller SQL for a call's validated parameters: the statement
   * held to max rows (on ClickHouse, the one compiled for the optional parameters the call leaves
   * out) and its positional values.
   */
  readonly statementFor: (values: Readonly<Record<string, string | null>>) => { sql: string; params: (string | null)[] };
  /**
   * Statements that touch everything the stored query may read, planned and never run for rows
   * (store-check.ts): the stored statement, and with sandboxing every CTE a caller may name.
   */
  readonly probes: readonly StoreProbe[];
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

/**
 * Load every `<name>.json` in `dir` with its statement in the store's dialect (`<name>.sql`, or
 * `<name>.clickhouse.sql`), validate and compile them.
 */
export function loadRegistry(dir: string, parser: SqlParser, compat: Compat | null = null, dialect: StoreDialect = 'postgresql', schema = 'logs'): Registry {
  const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
  const all = files.map((f) => loadOne(join(dir, f), parser, compat, STORE_BINDINGS[dialect], schema)).filter((q): q is StoredQuery => q !== null);
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

/** The definition compiled, or null when it is served only in a compatibility mode this service is not in (`"compat"`). */
function loadOne(file: string, parser: SqlParser, compat: Compat | null, binding: StoreBinding, schema: string): StoredQuery | null {
  const fail = (problem: string): never => {
    throw new DefinitionError(`${file}: ${problem}`);
  };
  const json = readFileSync(file, 'utf8');
  let def: Record<string, unknown>;
  try {
    def = JSON.parse(json) as Record<string, unknown>;
  } catch (err) {
    return fail(`not valid JSON${jsonErrorAt(json, (err as Error).message)} (${(err as Error).message})`);
  }
  if (typeof def !== 'object' || def === null || Array.isArray(def)) return fail('must be a JSON object');
  for (const key of Object.keys(def)) {
    if (!DEFINITION_FIELDS.includes(key)) {
      const near = closest(key, DEFINITION_FIELDS);
      fail(`unknown field "${key}"${near === undefined ? '' : ` (did you mean "${near}"?)`}; the fields are ${DEFINITION_FIELDS.join(', ')}`);
    }
  }

  // `"compat": "logflare"`: a name another system's clients call (Supabase Studio's analytics
  // names), served only when the service answers as that system does (COMPAT).
  if (def.compat !== undefined && !COMPAT_MODES.includes(def.compat as Compat)) fail(`"compat" must be ${COMPAT_MODES.join(' or ')}, got ${JSON.stringify(def.compat)}`);
  if (def.compat !== undefined && def.compat !== compat) return null;
  const id = def.id, name = def.name;
  if (typeof id !== 'string' || !UUID.test(id)) return fail(`"id" must be a lowercase UUID such as ${randomUUID()}, got ${JSON.stringify(id)}`);
  if (typeof name !== 'string' || !NAME.test(name)) return fail(`"name" must be dotted lowercase words, hyphens allowed (errors.by-status), got ${JSON.stringify(name)}`);
  if (def.description !== undefined && typeof def.description !== 'string') fail('"description" must be a string');
  if (basename(file, '.json') !== name) fail(`file name must be ${name}.json`);
  const maxRows = def.maxRows;
  if (!Number.isInteger(maxRows) || (maxRows as number) < 1 || (maxRows as number) > 1_000_000) fail('"maxRows" must be an integer from 1 to 1000000');
  const cachingSeconds = optionalSeconds(def.cachingSeconds, 'cachingSeconds', fail);
  const cacheWarmingSeconds = optionalSeconds(def.cacheWarmingSeconds, 'cacheWarmingSeconds', fail);
  if (cacheWarmingSeconds !== null && (cachingSeconds === null || cacheWarmingSeconds >= cachingSeconds)) {
    fail('"cacheWarmingSeconds" needs caching enabled and must be shorter than "cachingSeconds"');
  }
  if (typeof def.sandboxing !== 'boolean') fail(`"sandboxing" must be true or false, got ${JSON.stringify(def.sandboxing)}`);
  if (typeof def.redactPii !== 'boolean') fail(`"redactPii" must be true or false, got ${JSON.stringify(def.redactPii)}`);
  // Caller SQL can transform a value past any pattern (reverse(), replace(), casts, JSON keys), so a
  // stored query that must always be redacted cannot also accept caller SQL (docs/redaction.md).
  if (def.redactPii === true && def.sandboxing === true) fail('"redactPii": true cannot be combined with "sandboxing": true (caller sql could undo the redaction)');
  const params = parseParamDeclarations(def.params, fail, compat);
  const columns = def.columns ?? {};
  if (typeof columns !== 'object' || columns === null || Array.isArray(columns)) fail('"columns" must be an object of column name → type');
  for (const [column, type] of Object.entries(columns as Record<string, unknown>)) {
    if (!COLUMN_TYPES.includes(type as ColumnType)) fail(`"columns": "${column}" must be one of ${COLUMN_TYPES.join(', ')}, got ${JSON.stringify(type)}`);
  }

  const read = (suffix: string): { name: string; text: string } | undefined => {
    const path = file.replace(/\.json$/, suffix);
    try {
      return { name: basename(path), text: readFileSync(path, 'utf8').trim().replace(/;\s*$/, '') };
    } catch {
      return undefined;
    }
  };
  const statement = read(binding.suffix) ?? fail(`missing its statement ${basename(file, '.json')}${binding.suffix}${binding.dialect === 'postgresql' ? '' : ' (the stored query has no statement for this engine)'}`);
  // ClickHouse reads a backslash in a string literal as an escape, PostgreSQL does not: the binder
  // scans with PostgreSQL's rules, so a ClickHouse statement may not use one.
  if (binding.dialect === 'clickhouse' && statement.text.includes('\\')) fail(`${statement.name}: a backslash is not allowed in a ClickHouse statement (ClickHouse and PostgreSQL read it differently)`);
  let bound: { sql: string; names: readonly string[] };
  try {
    bound = bindSql(binding.prepare(statement.text, schema), (num, name) => (params[name] === undefined ? `@${name}` : binding.placeholder(num, params[name]!)));
  } catch (err) {
    return fail(`${statement.name}: ${(err as Error).message}`);
  }
  // Read off the PostgreSQL statement (beside a ClickHouse one too: the same rows from the same tables).
  const pg = binding.dialect === 'postgresql' ? bound : pgStatementBeside(read('.sql'));
  let facts: StatementFacts | undefined;
  try {
    facts = pg === undefined ? undefined : statementFacts(parser, pg.sql);
  } catch (err) {
    // On ClickHouse the PostgreSQL statement only types the CTEs; one that does not parse is refused there.
    if (binding.dialect === 'postgresql') fail(`${statement.name} is not valid SQL: ${(err as Error).message}`);
  }
  // A table the log store does not have is the statement's mistake (a typo, another database's
  // table), not the store's: refused here, naming it, rather than reported by /ready as a schema to apply.
  for (const table of facts?.tables ?? []) {
    const name = table.startsWith(`${schema}.`) ? table.slice(schema.length + 1) : table;
    if (STORE_TABLES.includes(name)) continue;
    const near = closest(name, STORE_TABLES);
    fail(`${pg === bound ? statement.name : `${basename(file, '.json')}.sql`} reads "${table}", which is not a table of the log store${near === undefined ? '' : ` (did you mean ${near}?)`}; it has ${STORE_TABLES.join(', ')} in schema "${schema}" (docs/log-store.md)`);
  }
  // Database errors name the parameter through the statement that runs: PostgreSQL's only.
  const sqlstateParams = binding.dialect === 'postgresql' && facts !== undefined
    ? Object.fromEntries(Object.entries(facts.clauseParams).map(([code, num]) => [code, bound.names[num - 1]!]))
    : {};
  const rowsPerCall = Math.min(maxRows as number, facts?.literalLimit ?? Infinity);
  let sandbox: SandboxTemplate | null = null;
  // What a stored call runs: on ClickHouse, the statement with only the CTEs its final SELECT reads.
  let runSql = bound.sql;
  if (binding.dialect === 'clickhouse') {
    const ch = clickhouseStatement(bound, read('.sql'), statement.name, parser, fail);
    runSql = ch.runSql;
    if (def.sandboxing === true) sandbox = ch.sandbox ?? fail(`sandboxing is enabled but ${statement.name} has no PostgreSQL statement beside it to type its CTEs`);
  } else if (def.sandboxing === true) {
    try {
      sandbox = prepareSandbox(parser, bound.sql);
    } catch (err) {
      fail(`sandboxing is enabled but ${statement.name} cannot be sandboxed: ${(err as Error).message}`);
    }
  }
  const sqlFileName = statement.name;
  const declared = Object.keys(params);
  const undeclared = bound.names.filter((n) => !(n in params));
  if (undeclared.length > 0) fail(`${sqlFileName} uses undeclared parameter(s) ${undeclared.map((n) => '@' + n).join(', ')}`);
  const unused = declared.filter((n) => !bound.names.includes(n));
  if (unused.length > 0) fail(`declares parameter(s) never used in ${sqlFileName}: ${unused.join(', ')}`);

  const limit = rowLimit(maxRows as number);
  const valuesFor = (names: readonly string[]) => {
    const specs = names.map((n) => params[n]!);
    return (values: Readonly<Record<string, string | null>>): (string | null)[] => names.map((n, i) => binding.value(specs[i]!, values[n] ?? null));
  };
  const bindValues = valuesFor(bound.names);
  // What a call without caller sql runs, per call shape (store-binding.ts): on ClickHouse, the
  // statement with the filters of the optional parameters it leaves out folded away.
  const shapes = binding.shapes(statement.text, (n) => params[n]?.required === false);
  const shaped = shapes?.params ?? [];
  const absentIn = (shape: number) => shaped.filter((_, i) => (shape & (1 << i)) !== 0);
  const calls = shapes === null
    ? [{ run: runSql, sql: limit.wrap(runSql), bind: bindValues }]
    : shapes.texts.map((text, shape) => {
        // A folded parameter the shape has is never null in its calls: typed as required. Any other
        // optional one (`coalesce(@p, 400)`, `ifNull(@p, …)`) stays nullable, as declared.
        const absent = absentIn(shape);
        const present = (n: string) => shaped.includes(n) && !absent.includes(n);
        const b = bindSql(binding.prepare(text, schema), (num, n) => binding.placeholder(num, present(n) ? { ...params[n]!, required: true } : params[n]!));
        const run = withOnlyWhatIsRead(splitClickHouseWith(b.sql));
        return { run, sql: limit.wrap(run), bind: valuesFor(b.names) };
      });
  const statementFor = (values: Readonly<Record<string, string | null>>) => {
    let shape = 0;
    shaped.forEach((n, i) => (shape |= (values[n] ?? null) === null ? 1 << i : 0));
    const call = calls[shape]!;
    return { sql: call.sql, params: call.bind(values) };
  };
  const sampleValues = Object.fromEntries(bound.names.map((n) => [n, sampleValue(params[n]!)]));
  const samples = bindValues(sampleValues);
  const probes = [{ sql: probeOf(bound.sql), params: samples }];
  if (sandbox !== null) {
    const everyCte = sandbox.cteNames.map((c) => `select 1 from ${quoteIdent(c)}`).join(' union all ');
    probes.push({ sql: probeOf(composeSandboxed(sandbox, everyCte).sql), params: samples });
  }
  // The statement with every optional parameter left out: null binds wherever it is read.
  const optionalNames = bound.names.filter((n) => !params[n]!.required);
  if (optionalNames.length > 0) probes.push({ sql: probeOf(bound.sql), params: bindValues({ ...sampleValues, ...Object.fromEntries(optionalNames.map((n) => [n, null])) }) });
  // Each folded statement as well: the store checks what folding made, at start-up with the rest.
  if (shapes !== null) {
    for (const [shape, call] of calls.entries()) {
      probes.push({ sql: probeOf(call.run), params: call.bind({ ...sampleValues, ...Object.fromEntries(absentIn(shape).map((n) => [n, null])) }) });
    }
  }
  return Object.freeze({
    id,
    name,
    description: typeof def.description === 'string' ? def.description : '',
    maxRows: maxRows as number,
    cachingSeconds,
    cacheWarmingSeconds,
    rowLimit: limit,
    cachePolicy: cachePolicy(cachingSeconds, cacheWarmingSeconds),
    sandboxing: def.sandboxing as boolean,
    sandbox,
    redactPii: def.redactPii as boolean,
    params,
    unknownParams: unknownParamPolicy(compat),
    requestKeys: def.sandboxing === true ? REQUEST_KEYS : [],
    paramOrder: Object.freeze(declared),
    regexParam: declared.find((n) => params[n]?.type === 'regex'),
    sqlstateParams: Object.freeze(sqlstateParams),
    rowsPerCall,
    columns: Object.freeze({ ...(columns as Record<string, ColumnType>) }),
    boundSql: runSql,
    bindOrder: Object.freeze([...bound.names]),
    bindValues,
    structColumns: Object.freeze(Object.entries(columns as Record<string, ColumnType>).filter(([, t]) => t === 'struct').map(([c]) => c)),
    resultColumns: Object.freeze({ json: new Set(Object.entries(columns as Record<string, ColumnType>).filter(([, t]) => t === 'object' || t === 'array').map(([c]) => c)), timestamps: new Set<string>() }),
    statementFor,
    probes: Object.freeze(probes.map((p) => Object.freeze({ sql: p.sql, params: Object.freeze(p.params) }))),
    file,
  });
}

/**
 * A ClickHouse statement checked against the PostgreSQL one beside it (the same parameters; every
 * CTE it defines is one of PostgreSQL's, which may have more for its rollup), returned with only
 * the CTEs its final SELECT reads (ClickHouse analyses every CTE it is sent), and what composing
 * caller sql needs: its CTEs, typed from the PostgreSQL statement's.
 */
function clickhouseStatement(bound: BoundSql, pg: { name: string; text: string } | undefined, name: string, parser: SqlParser, fail: (problem: string) => never): { runSql: string; sandbox: SandboxTemplate | undefined } {
  let split: ClickHouseWith;
  try {
    split = splitClickHouseWith(bound.sql);
  } catch (err) {
    return fail(`${name}: ${(err as Error).message}`);
  }
  if (pg !== undefined) {
    const pgBound = bindSql(pg.text);
    const names = (list: readonly string[]) => [...list].sort().join(', ');
    if (names(pgBound.names) !== names(bound.names)) fail(`${name} uses parameters ${names(bound.names)} but ${pg.name} uses ${names(pgBound.names)}`);
    let pgCtes: readonly string[] | undefined;
    try {
      pgCtes = prepareSandbox(parser, pgBound.sql).cteNames;
    } catch {
      pgCtes = undefined; // a PostgreSQL statement that is not one WITH … SELECT: nothing to compare
    }
    const extra = pgCtes === undefined ? [] : split.ctes.map((c) => c.name).filter((c) => !pgCtes.includes(c));
    if (extra.length > 0) fail(`${name} defines CTE(s) ${extra.join(', ')} that ${pg.name} does not: a caller's sql would read different tables on each engine`);
    if (pgCtes !== undefined) {
      const ctes = storedCteColumns(parser, pgBound.sql, split.ctes.map((c) => c.name));
      const sandbox: SandboxTemplate = Object.freeze({ parser, withText: '', cteNames: Object.freeze([...ctes.keys()]), orphanParams: Object.freeze([]), clickhouse: clickhouseSandbox(split, ctes) });
      return { runSql: withOnlyWhatIsRead(split), sandbox };
    }
  }
  return { runSql: withOnlyWhatIsRead(split), sandbox: undefined };
}

/** The PostgreSQL statement beside a ClickHouse one, bound (`$n`); undefined when there is none or it does not bind. */
function pgStatementBeside(pg: { text: string } | undefined): BoundSql | undefined {
  if (pg === undefined) return undefined;
  try {
    return bindSql(pg.text);
  } catch {
    return undefined; // refused where it is the statement that runs
  }
}

/** ` at line L, column C` of the offset JSON.parse's message gives, or nothing when it gives none. */
function jsonErrorAt(text: string, message: string): string {
  const m = /at position (\d+)/.exec(message);
  if (m === null) return '';
  const before = text.slice(0, Number(m[1]));
  const line = before.split('\n').length;
  return ` at line ${line}, column ${before.length - before.lastIndexOf('\n')}`;
}

/** The fields a stored query's `.json` may have (docs/stored-queries.md). */
const DEFINITION_FIELDS: readonly string[] = ['id', 'name', 'compat', 'description', 'maxRows', 'cachingSeconds', 'cacheWarmingSeconds', 'sandboxing', 'redactPii', 'params', 'columns'];
/** Result column types, as the listing and OpenAPI describe them. */
export const COLUMN_TYPES = ['string', 'text', 'timestamp', 'integer', 'number', 'boolean', 'object', 'array', 'struct'] as const;
export type ColumnType = (typeof COLUMN_TYPES)[number];

/**
 * A statement planned with everything `sql` reads and no row produced: PostgreSQL still resolves
 * every table and column and checks every privilege (the executor checks the whole range table,
 * subqueries planned away included), so a store that does not match fails it as the call would.
 */
function probeOf(sql: string): string {
  return `select 1 from (\n${sql}\n) as store_probe where false`;
}

function optionalSeconds(v: unknown, key: string, fail: (p: string) => never): number | null {
  if (v === null || v === undefined) return null;
  if (!Number.isInteger(v) || (v as number) < 1) fail(`"${key}" must be a positive integer (seconds) or null`);
  return v as number;
}
