/**
 * The canonical cache key of one call: the stored query's id (so id and name share entries), only
 * its declared parameters in declared order (unknown ones can never split or poison entries), the
 * caller's `sql`, and whether the answer is redacted (redacted and plain answers are kept apart).
 */
export function cacheKey(parts: {
  queryId: string;
  params: Readonly<Record<string, string | null>>;
  declaredOrder: readonly string[];
  sql: string | null;
  redact: boolean;
}): string {
  // hasOwn: a parameter named e.g. "constructor" must not pick up Object.prototype members.
  const params = parts.declaredOrder.map((name) => [name, Object.hasOwn(parts.params, name) ? (parts.params[name] ?? null) : null]);
  // JSON of an array is unambiguous: no separator inside a value can collide with another layout.
  return JSON.stringify([parts.queryId, params, parts.sql, parts.redact]);
}
