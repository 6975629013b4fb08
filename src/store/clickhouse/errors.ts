/**
 * ClickHouse's error codes (src/Common/ErrorCodes.cpp) → the SQLSTATE a PostgreSQL server would
 * give for the same failure, so db-errors.ts stays the one table from a database error to an HTTP
 * answer. An error without a ClickHouse code (a refused connection, a socket reset) passes through:
 * db-errors.ts knows those already.
 */
const SQLSTATE: Readonly<Record<number, string>> = Object.freeze({
  159: '57014', // TIMEOUT_EXCEEDED: max_execution_time
  394: '57014', // QUERY_WAS_CANCELLED: KILL QUERY
  241: '53200', // MEMORY_LIMIT_EXCEEDED
  158: '54000', // TOO_MANY_ROWS
  307: '54000', // TOO_MANY_BYTES
  396: '54000', // TOO_MANY_ROWS_OR_BYTES (max_result_rows/bytes)
  427: '2201B', // CANNOT_COMPILE_REGEXP: RE2 refused the pattern
  6: '22P02', // CANNOT_PARSE_TEXT
  27: '22P02', // CANNOT_PARSE_INPUT_ASSERTION_FAILED
  41: '22007', // CANNOT_PARSE_DATETIME
  38: '22007', // CANNOT_PARSE_DATE
  69: '22003', // ARGUMENT_OUT_OF_BOUND
  70: '22P02', // CANNOT_CONVERT_TYPE
  72: '22P02', // CANNOT_PARSE_NUMBER
  153: '22012', // ILLEGAL_DIVISION
  62: '42601', // SYNTAX_ERROR
  46: '42883', // UNKNOWN_FUNCTION
  43: '42804', // ILLEGAL_TYPE_OF_ARGUMENT
  53: '42804', // TYPE_MISMATCH
  47: '42703', // UNKNOWN_IDENTIFIER
  16: '42703', // NO_SUCH_COLUMN_IN_TABLE
  60: '42P01', // UNKNOWN_TABLE
  81: '3D000', // UNKNOWN_DATABASE
  164: '25006', // READONLY
  497: '42501', // ACCESS_DENIED
  516: '28000', // AUTHENTICATION_FAILED
  192: '28000', // UNKNOWN_USER
  194: '28000', // REQUIRED_PASSWORD
  209: '08006', // SOCKET_TIMEOUT
  210: '08006', // NETWORK_ERROR
  // A cluster's shard that cannot be reached (its node stopped): unavailable, as a server that is.
  279: '08006', // ALL_CONNECTION_TRIES_FAILED
  519: '08006', // NO_REMOTE_SHARD_AVAILABLE
  202: '53300', // TOO_MANY_SIMULTANEOUS_QUERIES
  // What a printed caller statement can meet (clickhouse/emit-*.ts): PostgreSQL's errors raised
  // with throwIf (division by zero, a bad boolean), and what ClickHouse refuses of a statement.
  395: '22023', // FUNCTION_THROW_IF_VALUE_IS_NON_ZERO
  125: '21000', // INCORRECT_RESULT_OF_SCALAR_SUBQUERY: more than one row
  386: '42804', // NO_COMMON_TYPE
  44: '42804', // ILLEGAL_COLUMN
  36: '22023', // BAD_ARGUMENTS
  215: '42803', // NOT_AN_AGGREGATE
  184: '42803', // ILLEGAL_AGGREGATION
  352: '42702', // AMBIGUOUS_COLUMN_NAME
  179: '42712', // MULTIPLE_EXPRESSIONS_FOR_ALIAS
  1: '0A000', // UNSUPPORTED_METHOD
  48: '0A000', // NOT_IMPLEMENTED
});

/** An error from ClickHouse as the engine rethrows it: `code` a SQLSTATE, the ClickHouse code kept. */
export class ClickHouseDbError extends Error {
  override name = 'ClickHouseDbError';
  constructor(readonly code: string, readonly clickhouseCode: number, message: string, options?: ErrorOptions) {
    super(message, options);
  }
}

/** The error to throw for what the client threw. */
export function fromClickHouse(err: unknown): unknown {
  const e = err as { code?: unknown; message?: unknown } | null;
  const n = typeof e?.code === 'string' && /^\d+$/.test(e.code) ? Number(e.code) : undefined;
  if (n === undefined) return err;
  // The message without ClickHouse's stack-trace and version suffixes, nor the statement it quotes.
  const message = String(e?.message ?? '').replace(/\s*\(version [^)]*\)\s*$/, '').replace(/: (?:In scope|while executing) [\s\S]*$/, '').trim();
  return new ClickHouseDbError(SQLSTATE[n] ?? 'XX000', n, message, { cause: err });
}
