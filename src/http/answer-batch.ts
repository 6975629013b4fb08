import type { QueryAnswer } from '../query/run-query.ts';
import type { RequestContext } from './request-context.ts';

/**
 * Answers ready at once (cache hits) are written together at the end of the event-loop turn
 * (setImmediate runs after the turn's I/O callbacks), not one by one as each request is read.
 *
 * Why: on loopback every response write wakes its reader, and waking a process that sleeps on
 * another CPU costs an inter-processor interrupt (in a VM, a VM exit), several µs of the writer's
 * kernel time. Writes spaced one request's work apart (~15 µs) catch the client asleep again each
 * time; written back to back, the later ones find it still awake. Measured with `wrk -c32` on the
 * bench's two cores (README, "Performance"): a bare node:http server written this way spends 15 µs
 * of CPU a call instead of 17. A request alone in its turn waits only for the turn to end.
 */
export class AnswerBatch {
  private queue: RequestContext[] = [];
  private spare: RequestContext[] = [];
  private scheduled = false;

  /** `deliver` writes one waiting answer (ctx.pendingAnswer) and finishes its request. */
  constructor(private readonly deliver: (ctx: RequestContext) => void) {}

  /** Hold `answer` for `ctx` until the end of this event-loop turn. */
  defer(ctx: RequestContext, answer: QueryAnswer): void {
    ctx.pendingAnswer = answer;
    this.queue.push(ctx);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flush);
    }
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    // Swapped, not copied: a request deferred while this batch is written joins the next one.
    const batch = this.queue;
    this.queue = this.spare;
    this.spare = batch;
    for (let i = 0; i < batch.length; i++) this.deliver(batch[i]!);
    batch.length = 0;
  };
}
