/**
 * Child process of test/unit/drain.test.ts: request churn through the drain (`drain`) or through a
 * plain Set (`set`, the control), run with --expose-gc --trace-gc-nvp; the test reads the promoted
 * bytes V8 reports for each scavenge. Everything alive is first made old by two full GCs, the
 * tracker's own storage included: the state a long-running server is in.
 */
import type { ServerResponse } from 'node:http';
import { createDrain } from '../../src/http/drain.ts';

const IN_FLIGHT = 32;
const REQUESTS = 1_000_000;

const drain = createDrain();
const set = new Set<object>();
const track = process.argv[2] === 'set' ? (res: ServerResponse) => (set.add(res), 0) : (res: ServerResponse) => drain.track(res);
const release = process.argv[2] === 'set' ? (_slot: number, res: ServerResponse) => void set.delete(res) : (slot: number, res: ServerResponse) => drain.release(slot, res);

// A request's objects, as far as the collector cares: a few hundred bytes reachable from the response.
const inFlight: ({ res: ServerResponse; slot: number } | null)[] = new Array(IN_FLIGHT).fill(null);
const step = (i: number): void => {
  const k = i % IN_FLIGHT;
  const done = inFlight[k];
  if (done) release(done.slot, done.res);
  const res = { headers: new Array(24).fill(i) } as unknown as ServerResponse;
  inFlight[k] = { res, slot: track(res) };
};
for (let i = 0; i < 1_000; i++) step(i);
const gc = (globalThis as { gc?: () => void }).gc!;
gc();
gc();
process.stdout.write('churn\n');
for (let i = 0; i < REQUESTS; i++) step(i);
