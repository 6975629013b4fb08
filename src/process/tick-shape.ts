import { executionAsyncResource } from 'node:async_hooks';

/** Holds one `process.nextTick` queue entry (from the next tick on) until `release()`. */
export interface TickShapePin {
  readonly entry: object | undefined;
  release(): void;
}

/**
 * Keep one of node's own `process.nextTick` queue entries alive, so V8 never forgets the hidden
 * classes (maps) those entries are built with.
 *
 * Why (found 24 Nov on Node 20.20.2, V8 11.3; README, Performance): node builds every queue entry
 * as an object literal with computed keys (`internal/process/task_queues`), and V8 records the
 * maps the literal goes through only weakly. A full GC while no entry is alive (during start-up,
 * or in an idle moment such as after the server closes an idle keep-alive connection) collects
 * those maps; the next entries get new ones, and V8 marks the literal's property definitions
 * megamorphic for good. From then on each `nextTick` defines its properties through the runtime,
 * ~250 ns more a call, and node:http makes about seven a request. Call it first thing in the
 * process: the service's start-up itself runs a full GC. `test/tick-shape.test.ts` shows both states.
 * Under V8's coverage mode (`NODE_V8_COVERAGE`) the pin does not hold; nothing in production runs so.
 */
export function pinTickShape(): TickShapePin {
  const pin: { entry: object | undefined; release(): void } = {
    entry: undefined,
    release() {
      pin.entry = undefined;
    },
  };
  // Inside a nextTick callback the current async resource is that callback's queue entry.
  process.nextTick(() => (pin.entry = executionAsyncResource()));
  return pin;
}
