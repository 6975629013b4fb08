/**
 * What Logflare does to an event body before it stores it, so queries written against Logflare
 * read the same fields here (v1.31.2, the version Supabase pins):
 * - cleaning, `Logflare.Logs.Ingest.MetadataCleaner.deep_reject_nil_and_empty/1`
 *   (`lib/logflare/logs/cleaner.ex`): at every depth, values that are null, "", {} or [] are
 *   dropped, and so are objects and arrays that become empty;
 * - key normalisation to BigQuery column rules, `Logflare.Logs.IngestTransformers`
 *   (`lib/logflare/logs/ingest_transformers.ex`), applied to every key at every depth in this order:
 *   a `_TABLE_`/`_FILE_`/`_PARTITION_` prefix gets one more `_`; a key with `-` becomes
 *   `_` + the key with `-` as `_` (`x-forwarded-for` → `_x_forwarded_for`); a leading digit gets a
 *   `_`; a key with any byte outside [A-Za-z0-9_] becomes `_` + the key with each such byte as `_`;
 *   a key over 128 bytes becomes `_` + its first 128 bytes.
 * Added here because PostgreSQL's jsonb cannot store them: U+0000 becomes U+FFFD and a lone
 * surrogate U+FFFD, in keys and strings. Callers check the depth first (depthWithin), so the
 * recursion here is bounded.
 */

/** Nesting a body may have: deeper is rejected (PostgreSQL's JSON parser stops at its stack depth). */
export const MAX_DEPTH = 64;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Whether `value` nests at most `max` levels of objects and arrays; iterative, so any input is safe. */
export function depthWithin(value: unknown, max = MAX_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth >= max) return false;
    for (const child of Array.isArray(v) ? v : Object.values(v)) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return true;
}

/** ES2024's String methods (Node 20 has them; the project's TypeScript lib is ES2022). */
interface Es2024String {
  isWellFormed(): boolean;
  toWellFormed(): string;
}

/** A string PostgreSQL can store: no NUL, no lone surrogate. */
export function storable(text: string): string {
  const s = text as unknown as Es2024String;
  const wellFormed = s.isWellFormed() ? text : s.toWellFormed();
  return wellFormed.includes('\0') ? wellFormed.replaceAll('\0', '\uFFFD') : wellFormed;
}

/** The cleaned, key-normalised copy of an object (undefined when nothing is left). */
export function cleanObject(value: { [key: string]: unknown }): { [key: string]: Json } | undefined {
  const out: { [key: string]: Json } = {};
  let any = false;
  // Object.keys, not entries: no pair array per key (ingest cleans every event's keys).
  for (const key of Object.keys(value)) {
    const cleaned = cleanValue(value[key]);
    if (cleaned === undefined) continue;
    out[normaliseKey(storable(key))] = cleaned;
    any = true;
  }
  return any ? out : undefined;
}

function cleanValue(v: unknown): Json | undefined {
  if (v === null || v === undefined || v === '') return undefined;
  if (typeof v === 'string') return storable(v);
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'boolean') return v;
  if (Array.isArray(v)) {
    const items: Json[] = [];
    for (const item of v) {
      const cleaned = cleanValue(item);
      if (cleaned !== undefined) items.push(cleaned);
    }
    return items.length > 0 ? items : undefined;
  }
  if (typeof v === 'object') return cleanObject(v as { [key: string]: unknown });
  return undefined;
}

const RESERVED_PREFIX = /^_(?:TABLE|FILE|PARTITION)_/;
const NOT_WORD = /[^A-Za-z0-9_]/;
const MAX_KEY_BYTES = 128;

/** Logflare 1.31.2's key rules, in its order. */
export function normaliseKey(key: string): string {
  let k = key;
  if (RESERVED_PREFIX.test(k)) k = `_${k}`;
  if (k.includes('-')) k = `_${k.replaceAll('-', '_')}`;
  if (/^[0-9]/.test(k)) k = `_${k}`;
  if (NOT_WORD.test(k)) {
    // Elixir's ~r/\W/ without the unicode flag matches bytes: a two-byte character is two `_`.
    let out = '_';
    for (const ch of k) out += NOT_WORD.test(ch) ? '_'.repeat(Buffer.byteLength(ch)) : ch;
    k = out;
  }
  // Only ASCII is left, so bytes and characters agree.
  if (k.length > MAX_KEY_BYTES) k = `_${k.slice(0, MAX_KEY_BYTES)}`;
  return k;
}
