// Preloaded (`--require`) by test/tick-shape.test.ts into a process run with `--expose-gc
// --allow-natives-syntax`. The first SIGUSR2 runs two full GCs, then uses nextTick again; the next one
// prints `%DebugPrint(process.nextTick)`, whose feedback slots say whether node's nextTick entry
// literal is still monomorphic (natives syntax is the only way to see it), then a line saying it
// has. V8 prints through C's stdout, which the test unbuffers, so that line comes last.
const noop = () => {};
let signals = 0;
process.on('SIGUSR2', () => {
  if (signals++ === 0) {
    gc();
    gc();
    for (let i = 0; i < 100; i++) process.nextTick(noop, i);
    process.stdout.write('TICK-SHAPE GC\n');
  } else {
    %DebugPrint(process.nextTick);
    process.stdout.write('TICK-SHAPE PRINTED\n');
  }
});
