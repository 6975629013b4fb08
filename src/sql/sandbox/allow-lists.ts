/**
 * What caller SQL may contain: size limits checked before parsing, and the allow-lists the parse-tree
 * walk (walker.ts) checks every node, function, type and SQL value function against. Anything not
 * listed here is refused; see docs/sandbox.md for the reasoning.
 */

/** Caller SQL is refused above this many UTF-8 bytes, before any parsing. */
export const MAX_SQL_BYTES = 64 * 1024;
/**
 * Token budget for caller SQL. libpg-query serialises the parse tree recursively on the native stack:
 * a long operator chain (`1+1+…`, ~10k levels) overflows it, and after a few dozen such overflows the
 * WASM module is corrupted for good ("memory access out of bounds"). Measured: 3,000 tokens of the
 * worst chains still parse with 8,000 JS frames already on the stack, so nothing deep reaches it.
 */
export const MAX_SQL_TOKENS = 3000;
/**
 * Token budget for the PostgreSQL a BigQuery-dialect `sql` translates to (dialect/): the caller's
 * own text was held to MAX_SQL_TOKENS already, and the translation keeps its operator chains as
 * long as they were (what the stack depends on) while spelling functions out at length (a
 * JSON_VALUE is a CASE over try_jsonb): Studio's Auth latency query, 1,150 tokens, becomes ~3,700.
 */
export const MAX_TRANSLATED_TOKENS = 4 * MAX_SQL_TOKENS;
/** Parenthesis/bracket nesting allowed in caller SQL (checked on tokens, before parsing). */
export const MAX_PAREN_DEPTH = 100;
/**
 * Parse-tree nesting allowed when walking caller SQL (keeps our own recursion shallow). One binary
 * operator is one level, so this still admits a ~390-term `a || b || …` chain; logs.all is 20 deep.
 */
export const MAX_AST_DEPTH = 400;

/**
 * Functions a caller may call (unqualified or as `pg_catalog.name`). Pure computations only: no
 * catalog, file, network, session, sequence, lock or large-object access. Some SQL-standard syntax
 * parses to a `pg_catalog.*` call and is listed under its function name (extract, timezone for
 * AT TIME ZONE, btrim for TRIM, like_escape for LIKE … ESCAPE, …).
 */
export const ALLOWED_FUNCTIONS: ReadonlySet<string> = Object.freeze(new Set([
  // aggregates
  'count', 'sum', 'avg', 'min', 'max', 'bool_and', 'bool_or', 'every', 'bit_and', 'bit_or', 'bit_xor',
  'array_agg', 'string_agg', 'jsonb_agg', 'json_agg', 'jsonb_object_agg', 'json_object_agg',
  'percentile_cont', 'percentile_disc', 'mode', 'stddev', 'stddev_pop', 'stddev_samp',
  'variance', 'var_pop', 'var_samp', 'corr', 'covar_pop', 'covar_samp',
  'regr_avgx', 'regr_avgy', 'regr_count', 'regr_intercept', 'regr_r2', 'regr_slope',
  'regr_sxx', 'regr_sxy', 'regr_syy',
  // window
  'row_number', 'rank', 'dense_rank', 'percent_rank', 'cume_dist', 'ntile', 'lag', 'lead',
  'first_value', 'last_value', 'nth_value',
  // strings
  'length', 'char_length', 'character_length', 'octet_length', 'bit_length', 'lower', 'upper',
  'initcap', 'trim', 'btrim', 'ltrim', 'rtrim', 'lpad', 'rpad', 'substr', 'substring', 'left',
  'right', 'replace', 'reverse', 'repeat', 'split_part', 'strpos', 'position', 'overlay',
  'concat', 'concat_ws', 'format', 'md5', 'starts_with', 'translate', 'to_hex', 'ascii', 'chr',
  'encode', 'decode', 'convert_to', 'sha224', 'sha256', 'sha384', 'sha512',
  'normalize', 'is_normalized', 'like_escape', 'similar_to_escape',
  // regular expressions
  'regexp_match', 'regexp_matches', 'regexp_replace', 'regexp_split_to_array',
  'regexp_split_to_table', 'regexp_count', 'regexp_like', 'regexp_substr', 'regexp_instr',
  // date and time
  'now', 'current_timestamp', 'clock_timestamp', 'statement_timestamp', 'transaction_timestamp',
  'date_trunc', 'date_part', 'extract', 'date_bin', 'age', 'make_interval', 'make_timestamp',
  'make_timestamptz', 'make_date', 'make_time', 'to_timestamp', 'to_char', 'to_date', 'to_number',
  'timezone', 'justify_days', 'justify_hours', 'justify_interval', 'isfinite', 'overlaps',
  // JSON
  'jsonb_build_object', 'json_build_object', 'jsonb_build_array', 'json_build_array',
  'jsonb_extract_path', 'jsonb_extract_path_text', 'json_extract_path', 'json_extract_path_text',
  'jsonb_array_elements', 'jsonb_array_elements_text', 'json_array_elements',
  'json_array_elements_text', 'jsonb_array_length', 'json_array_length', 'jsonb_each',
  'jsonb_each_text', 'json_each', 'json_each_text', 'jsonb_object_keys', 'json_object_keys',
  'jsonb_typeof', 'json_typeof', 'jsonb_strip_nulls', 'json_strip_nulls', 'jsonb_set',
  'jsonb_insert', 'jsonb_pretty', 'to_jsonb', 'to_json', 'jsonb_to_record', 'jsonb_to_recordset',
  'jsonb_path_query', 'jsonb_path_query_array', 'jsonb_path_query_first', 'jsonb_path_exists',
  'jsonb_path_match', 'row_to_json', 'array_to_json',
  // the log schema's own (sql/schema.sql): text to jsonb, NULL for text that is not JSON
  'try_jsonb',
  // maths
  'abs', 'ceil', 'ceiling', 'floor', 'round', 'trunc', 'sign', 'sqrt', 'cbrt', 'power', 'pow',
  'exp', 'ln', 'log', 'log10', 'mod', 'div', 'width_bucket', 'random', 'pi', 'degrees', 'radians',
  'cos', 'sin', 'tan', 'cot', 'acos', 'asin', 'atan', 'atan2',
  'num_nulls', 'num_nonnulls',
  // arrays and set-returning helpers (statement timeout and max rows bound their output)
  'array_length', 'array_position', 'array_positions', 'array_remove', 'array_replace',
  'array_append', 'array_prepend', 'array_cat', 'array_to_string', 'string_to_array', 'unnest',
  'cardinality', 'array_upper', 'array_lower', 'array_dims', 'generate_series',
  'generate_subscripts',
]));

/**
 * Types a caller may cast to (`x::t`, `CAST`, `t 'literal'`, column definition lists). An allow-list
 * rather than a ban on reg* types: casts to regclass/regproc/… look names up in the catalogs, and
 * casts to a table's row type or a domain reveal schema; none of that is needed for log analysis.
 */
export const ALLOWED_TYPES: ReadonlySet<string> = Object.freeze(new Set([
  'text', 'varchar', 'bpchar', 'char', 'int2', 'int4', 'int8', 'smallint', 'integer', 'int',
  'bigint', 'float4', 'float8', 'real', 'numeric', 'decimal', 'bool', 'boolean', 'date', 'time',
  'timetz', 'timestamp', 'timestamptz', 'interval', 'json', 'jsonb', 'jsonpath', 'uuid', 'inet',
  'cidr', 'bytea',
]));

/**
 * SQLValueFunction variants a caller may use. CURRENT_USER, SESSION_USER, USER, CURRENT_ROLE,
 * CURRENT_CATALOG and CURRENT_SCHEMA are refused: they reveal the database role and layout and
 * no log query needs them.
 */
export const ALLOWED_SQL_VALUE_FUNCTIONS: ReadonlySet<string> = Object.freeze(new Set([
  'SVFOP_CURRENT_DATE', 'SVFOP_CURRENT_TIME', 'SVFOP_CURRENT_TIME_N', 'SVFOP_CURRENT_TIMESTAMP',
  'SVFOP_CURRENT_TIMESTAMP_N', 'SVFOP_LOCALTIME', 'SVFOP_LOCALTIME_N', 'SVFOP_LOCALTIMESTAMP',
  'SVFOP_LOCALTIMESTAMP_N',
]));

/**
 * Parse-tree node types that may appear in caller SQL. Every node is checked against this list, so
 * a node type added by a future parser version is refused until someone decides it is harmless.
 */
export const ALLOWED_NODES: ReadonlySet<string> = Object.freeze(new Set([
  'SelectStmt', 'WithClause', 'CommonTableExpr', 'CTESearchClause', 'CTECycleClause', 'ResTarget',
  'RangeVar', 'RangeSubselect', 'RangeFunction', 'JoinExpr', 'Alias', 'ColumnDef', 'SortBy',
  'WindowDef', 'GroupingSet', 'GroupingFunc', 'ColumnRef', 'A_Star', 'A_Const', 'A_Expr',
  'BoolExpr', 'FuncCall', 'NamedArgExpr', 'TypeCast', 'TypeName', 'SubLink', 'CaseExpr', 'CaseWhen',
  'CoalesceExpr', 'MinMaxExpr', 'NullTest', 'BooleanTest', 'A_Indirection', 'A_Indices',
  'A_ArrayExpr', 'RowExpr', 'CollateClause', 'SQLValueFunction', 'String', 'Integer', 'Float',
  'Boolean', 'BitString', 'List',
]));

/** Refused node types that deserve a clearer message than "not allowed". */
export const DENIED_NODES: Readonly<Record<string, string>> = Object.freeze({
  IntoClause: 'SELECT … INTO is not allowed',
  LockingClause: 'FOR UPDATE/SHARE locking clauses are not allowed',
  RangeTableSample: 'TABLESAMPLE is not allowed',
  RangeTableFunc: 'XMLTABLE is not allowed',
  JsonTable: 'JSON_TABLE is not allowed',
  XmlExpr: 'XML functions are not allowed',
  XmlSerialize: 'XMLSERIALIZE is not allowed',
  ParamRef: 'parameters ($n) are not allowed in sql; only the stored query binds parameters',
});

/**
 * Fields whose value is a bare struct of a fixed type (libpg-query wraps only `Node` fields in
 * `{Type: …}`). Naming them makes the walk check e.g. the arms of a UNION as SELECTs and every type
 * name, instead of descending into them as anonymous objects.
 */
export const BARE_FIELDS: Readonly<Record<string, string>> = Object.freeze({
  larg: 'SelectStmt', // JoinExpr.larg/rarg are wrapped nodes and never reach this table
  rarg: 'SelectStmt',
  withClause: 'WithClause',
  intoClause: 'IntoClause',
  typeName: 'TypeName',
});
