import { randomFillSync } from 'node:crypto';

/** UUIDs per random refill: one `randomFillSync` call serves this many requests. */
const BATCH = 256;
const HEX = Buffer.from('0123456789abcdef', 'latin1');
const DASH = 0x2d;
/** A request id a caller may bring (X-Request-Id) and have echoed; anything else gets a fresh one. */
const CALLER_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Request ids: the caller's own when it is fit to echo (`for`), else (`next`) random (version 4)
 * UUIDs, as `crypto.randomUUID()` makes them, from the same CSPRNG and likewise drawn in batches.
 *
 * Why not `randomUUID()` itself: it joins 21 pieces into a string rope, and node:http's header
 * check (a regular expression over every header value) cannot run on a rope, so V8 leaves its
 * fast path to flatten it, on every response. Here the 36 characters are written into a buffer
 * and read out as one flat string.
 */
export class RequestIds {
  private readonly random = Buffer.alloc(16 * BATCH);
  private offset = this.random.length;
  private readonly text = Buffer.alloc(36);

  /**
   * The id of a request: the caller's X-Request-Id if it is fit to echo, else a fresh UUID. Either
   * way only letters, digits and `._:-`: the id is its own JSON text between quotes (request-line.ts).
   */
  for(incoming: string | string[] | undefined): string {
    return typeof incoming === 'string' && CALLER_ID.test(incoming) ? incoming : this.next();
  }

  next(): string {
    if (this.offset === this.random.length) {
      randomFillSync(this.random);
      this.offset = 0;
    }
    const r = this.random;
    const o = this.offset;
    this.offset += 16;
    // RFC 9562 5.4: version 4 in the high nibble of octet 6, variant 10 in the high bits of octet 8.
    r[o + 6] = (r[o + 6]! & 0x0f) | 0x40;
    r[o + 8] = (r[o + 8]! & 0x3f) | 0x80;
    const t = this.text;
    let j = 0;
    for (let i = 0; i < 16; i++) {
      if (i === 4 || i === 6 || i === 8 || i === 10) t[j++] = DASH;
      const b = r[o + i]!;
      t[j++] = HEX[b >> 4]!;
      t[j++] = HEX[b & 15]!;
    }
    return t.toString('latin1', 0, 36);
  }
}
