/**
 * Child process of test/unit/bounded-memo.test.ts: hits on a few hot keys in turn, each under a
 * fresh key string (as a request's URL is), through the bounded memo (`memo`) or through a Map kept
 * in use order by a delete and an insert per use (`reinsert`, the control), run with --expose-gc
 * --trace-gc-nvp after two full GCs; the test reads the promoted bytes of each scavenge.
 */
import { BoundedMemo } from '../../src/shared/bounded-memo.ts';

const HOT_KEYS = 8;
const USES = 1_000_000;

const keys = Array.from({ length: HOT_KEYS }, (_, i) => `/api/endpoints/query/usage.api-counts?interval=daily&project=p${i}`);
const memo = new BoundedMemo<{ v: number }>(1024, 2048);
const ordered = new Map<string, { v: number }>();
for (const k of keys) memo.set(k, ordered.set(k, { v: 1 }).get(k)!);
const get =
  process.argv[2] === 'reinsert'
    ? (key: string) => {
        const value = ordered.get(key)!;
        ordered.delete(key);
        ordered.set(key, value);
        return value;
      }
    : (key: string) => memo.get(key)!;
const gc = (globalThis as { gc?: () => void }).gc!;
gc();
gc();
process.stdout.write('churn\n');
let total = 0;
for (let i = 0; i < USES; i++) {
  const request = { headers: new Array(24).fill(i) }; // the rest of a request's garbage
  total += get((keys[i % HOT_KEYS]! + ' ').slice(0, -1)).v + request.headers.length;
}
if (total === 0) process.stdout.write('unreachable\n');
