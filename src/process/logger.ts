import type { LogLevel } from './config.ts';
import { jsonString } from '../shared/json-string.ts';
import { LineBatch } from './line-batch.ts';

/** JSON-lines logger: one object per line on stdout (errors on stderr). */
export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  /**
   * A writer of info lines with message `msg`, whose fields the caller has already written as JSON
   * object members (`"k":v,…`, no braces; `jsonString` quotes a string): for the request line,
   * written once per request, so the message is quoted once, here. Undefined when info lines are
   * not written: a caller then gathers no fields at all.
   */
  infoMembersWriter(msg: string): ((members: string) => void) | undefined;
  /** Whether lines at `level` are written: a caller whose fields cost something to gather asks first. */
  enabled(level: Exclude<LogLevel, 'silent'>): boolean;
}

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

/** A logger that drops lines below `level`; `write` is injectable for tests. */
export function createLogger(level: LogLevel, write: (line: string, level: LogLevel) => void = standardStreams()): Logger {
  // The line's time, formatted once per millisecond: a busy service logs many lines in each.
  let lastMs = -1;
  let lastIso = '';
  const isoNow = (): string => {
    const ms = Date.now();
    if (ms !== lastMs) {
      lastMs = ms;
      lastIso = new Date(ms).toISOString();
    }
    return lastIso;
  };
  const enabled = (lvl: Exclude<LogLevel, 'silent'>): boolean => RANK[lvl] >= RANK[level];
  const head = (lvl: Exclude<LogLevel, 'silent'>): string => `","level":"${lvl}","msg":`;
  const line = (lvlHead: string, quotedMsg: string, members: string): string =>
    `{"time":"${isoNow()}${lvlHead}${quotedMsg}${members === '' ? '}' : `,${members}}`}`;
  const at = (lvl: Exclude<LogLevel, 'silent'>) => {
    const lvlHead = head(lvl);
    return (msg: string, fields: Record<string, unknown> = {}) => {
      // The fields serialised as they are, not copied into a new object first (JSON.stringify leaves
      // out undefined values either way); their braces dropped.
      if (enabled(lvl)) write(line(lvlHead, jsonString(msg), JSON.stringify(fields).slice(1, -1)), lvl);
    };
  };
  const infoHead = head('info');
  return {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    infoMembersWriter: (msg) => {
      if (!enabled('info')) return undefined;
      const quotedMsg = jsonString(msg);
      return (members) => write(line(infoHead, quotedMsg, members), 'info');
    },
    enabled,
  };
}

/** Bytes of stdout lines held before they are written, if the event-loop turn has not ended first. */
const BATCH_BYTES = 64 * 1024;

/**
 * stdout in batches, stderr at once. The request log is a line per request; stdout to a pipe or a
 * file is a blocking write in Node, so lines are held (line-batch.ts) and written once per
 * event-loop turn (or per 64 KiB) instead of once each. Pending lines are written on exit,
 * `process.exit()` included.
 */
function standardStreams(): (line: string, level: LogLevel) => void {
  const batch = new LineBatch(process.stdout, BATCH_BYTES);
  process.on('exit', batch.flush);
  return (line, level) => {
    if (level === 'error' || level === 'warn') {
      batch.flush(); // keeps the order of what came before
      process.stderr.write(line + '\n');
      return;
    }
    batch.add(line);
  };
}

/** Fields worth logging from an error: never SQL text or parameter values. */
export function errorFields(err: unknown): Record<string, unknown> {
  if (!(err instanceof Error)) return { error: String(err) };
  const cause = err.cause instanceof Error ? err.cause : undefined;
  const src = cause ?? err;
  const code = (src as { code?: unknown }).code;
  return { error: src.message, ...(typeof code === 'string' ? { db_code: code } : {}), ...(src.stack ? { stack: src.stack.split('\n').slice(0, 6).join('\n') } : {}) };
}
