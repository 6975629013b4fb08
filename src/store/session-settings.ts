/**
 * The session settings every engine connection runs with, in one list: read-only transactions, a
 * statement timeout, UTC output, a fixed search_path, no JIT compilation, prepared statements
 * planned with each call's values, and the settings the sandbox's parser assumes when it reads SQL
 * text (standard_conforming_strings on, no backslash quotes, UTF-8). Pinned per session so a role
 * or database default (`alter role … set standard_conforming_strings = off`) cannot make the
 * server read a string differently from the validator.
 * Values are validated identifiers and integers (config.ts), so no escaping is needed.
 */
export function sessionSettings(schema: string, statementTimeoutMs: number): readonly (readonly [string, string])[] {
  return [
    ['default_transaction_read_only', 'on'],
    ['statement_timeout', String(statementTimeoutMs)],
    ['TimeZone', 'UTC'],
    ['search_path', schema],
    // A caller's sandboxed SQL may not hold locks or idle inside a transaction for long either.
    ['lock_timeout', String(statementTimeoutMs)],
    ['idle_in_transaction_session_timeout', String(Math.max(statementTimeoutMs, 60_000))],
    ['standard_conforming_strings', 'on'],
    ['backslash_quote', 'off'],
    ['client_encoding', 'UTF8'],
    // JIT compiles each statement anew, and a statement here runs for milliseconds to seconds: past
    // the planner's cost thresholds compiling costs more than it saves. Measured on usage.api-counts'
    // daily refresh at 10M edge rows: 925 ms of a 2.3 s run went to JIT; with it off the bench's
    // refresh took 1,474 ms instead of 2,172 (README, Performance). PGlite has no JIT; the setting
    // is accepted and changes nothing there.
    ['jit', 'off'],
    // Stored queries' SQL is kept prepared (pg-engine.ts), and PostgreSQL would switch a prepared
    // statement to a generic plan after five custom ones when it estimates it no worse; the stored
    // queries are written to be planned with their values (usage.api-counts' interval folds its
    // CASEs away only then), so every execution is planned with its values, as unnamed ones are.
    ['plan_cache_mode', 'force_custom_plan'],
  ];
}

/** The log writer's statement timeout: half of Vector's 60 s request timeout (see below). */
export const WRITER_STATEMENT_TIMEOUT_MS = 30_000;

/**
 * The session settings of the log writer's connections (pg-writer.ts): UTC, the log schema, UTF-8,
 * and a statement timeout below Vector's 60 s request timeout, so a write is over (committed or
 * rolled back) before Vector gives up on it and resends.
 */
export function writerSessionSettings(schema: string, statementTimeoutMs: number): readonly (readonly [string, string])[] {
  return [
    ['statement_timeout', String(statementTimeoutMs)],
    ['lock_timeout', String(statementTimeoutMs)],
    ['TimeZone', 'UTC'],
    ['search_path', schema],
    ['client_encoding', 'UTF8'],
    ['standard_conforming_strings', 'on'],
    ['idle_in_transaction_session_timeout', String(Math.max(statementTimeoutMs, 60_000))],
  ];
}

/** Settings as a startup-packet `options` string (`-c name=value …`): no extra round trip. */
export function optionsString(settings: readonly (readonly [string, string])[]): string {
  return settings.map(([name, value]) => `-c ${name}=${value}`).join(' ');
}
