/** Where a batch of lines goes: process.stdout, or a test's recorder. */
export interface LineSink {
  write(chunk: Uint8Array): unknown;
  /** Bytes the stream still holds, not yet handed to the OS (0 after a write that completed at once). */
  readonly writableLength: number;
}

/** A UTF-16 code unit is at most 3 bytes of UTF-8. */
const MAX_UTF8_BYTES_PER_UNIT = 3;
const NEWLINE = 0x0a;

/**
 * Lines copied into a buffer as UTF-8 as they come, and the buffer written once at the end of the
 * event-loop turn (or when full) instead of a write per line. Why bytes and not a string joined
 * per turn: a request line is a rope of some twenty small strings, and flattening a turn's worth of
 * ropes at the write read them back from all over the young generation (~0.5 µs a line in `perf`
 * under load); copied at once, each line is flattened while its pieces are still in the cache.
 */
export class LineBatch {
  private buf: Buffer;
  private used = 0;
  private scheduled = false;

  constructor(
    private readonly sink: LineSink,
    capacityBytes: number,
  ) {
    this.buf = Buffer.allocUnsafe(capacityBytes);
  }

  add(line: string): void {
    const worst = line.length * MAX_UTF8_BYTES_PER_UNIT + 1;
    if (this.used + worst > this.buf.length) {
      this.flush();
      if (worst > this.buf.length) {
        // Longer than a whole batch: written by itself (after what came before, flushed above).
        this.sink.write(Buffer.from(line + '\n'));
        return;
      }
    }
    this.used += this.buf.write(line, this.used);
    this.buf[this.used++] = NEWLINE;
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.endOfTurn).unref();
    }
  }

  /** The one end-of-turn write scheduled by the turn's first line (flushes before it leave it scheduled). */
  private readonly endOfTurn = (): void => {
    this.scheduled = false;
    this.flush();
  };

  /** Write what is held now (before a line that might not fit, before a stderr line, on exit). */
  readonly flush = (): void => {
    if (this.used === 0) return;
    this.sink.write(this.buf.subarray(0, this.used));
    this.used = 0;
    // A stream that could not write the bytes at once keeps them until it can: the next lines go
    // into a new buffer then, never over bytes not yet written.
    if (this.sink.writableLength > 0) this.buf = Buffer.allocUnsafe(this.buf.length);
  };
}
