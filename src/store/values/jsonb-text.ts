/**
 * JSON text exactly as PostgreSQL prints it back from a `jsonb` column: keys of each object sorted
 * (shorter first, then by bytes), a repeated key kept once (the last), `": "` and `", "` between
 * parts, strings with only `"`, `\`, and control characters escaped, numbers as `numeric` prints
 * them (`1e2` → `100`, `1.50` stays `1.50`). A store that keeps JSON as text (ClickHouse) writes
 * this form at insert, so both engines answer with the same bytes (docs/clickhouse.md).
 * Returns null for text that is not JSON (or holds `\u0000`, which jsonb refuses).
 */
export function jsonbText(text: string): string | null {
  const p = new Reader(text);
  try {
    p.space();
    const out = p.value();
    p.space();
    return p.at === text.length ? out : null;
  } catch {
    return null;
  }
}

/**
 * The same text for a value JSON.parse made (ingest's rows): no second tokenising of text that was
 * a JS value a moment ago. What JSON.stringify would drop (undefined, functions) is dropped; a
 * number prints as numeric would print JSON.stringify's digits.
 */
export function jsonbOfValue(v: unknown): string {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'string':
      return quote(v);
    case 'number':
      // An integer prints the same digits either way (String(-0) is '0', as numeric prints it).
      return Number.isSafeInteger(v) ? String(v) : Number.isFinite(v) ? numericText(JSON.stringify(v)) : 'null';
    case 'boolean':
      return v ? 'true' : 'false';
    case 'object': {
      // Built by concatenation, keys compared as bytes only when one is not ASCII: ingest prints
      // every event's metadata this way (ClickHouse), so this is per event.
      if (Array.isArray(v)) {
        let out = '[';
        for (let i = 0; i < v.length; i++) {
          const item: unknown = v[i];
          out += (i === 0 ? '' : ', ') + (item === undefined || typeof item === 'function' ? 'null' : jsonbOfValue(item));
        }
        return `${out}]`;
      }
      const o = v as Record<string, unknown>;
      const keys: string[] = [];
      let ascii = true;
      for (const k of Object.keys(o)) {
        const item = o[k];
        if (item === undefined || typeof item === 'function') continue;
        keys.push(k);
        if (ascii && NON_ASCII.test(k)) ascii = false;
      }
      keys.sort(ascii ? compareAscii : compareKeys);
      let out = '{';
      for (let i = 0; i < keys.length; i++) out += `${i === 0 ? '' : ', '}${quote(keys[i]!)}: ${jsonbOfValue(o[keys[i]!])}`;
      return `${out}}`;
    }
    default:
      return 'null';
  }
}

const ESCAPES: Readonly<Record<string, string>> = Object.freeze({ '"': '\\"', '\\': '\\\\', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' });
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const PLAIN_INTEGER = /^-?(?:0|[1-9]\d*)$/;
const NON_ASCII = /[^\x00-\x7f]/;
const NEEDS_ESCAPE = /["\\\x00-\x1f]/;
const CONTROL = /[\x00-\x1f]/;

class Reader {
  at = 0;
  constructor(private readonly text: string) {}

  space(): void {
    while (this.at < this.text.length && ' \t\n\r'.includes(this.text[this.at]!)) this.at++;
  }

  value(): string {
    const c = this.text[this.at];
    if (c === '{') return this.object();
    if (c === '[') return this.array();
    if (c === '"') return quote(this.string());
    for (const word of ['true', 'false', 'null']) {
      if (this.text.startsWith(word, this.at)) {
        this.at += word.length;
        return word;
      }
    }
    NUMBER.lastIndex = this.at;
    const m = NUMBER.exec(this.text);
    if (m === null) throw new Error('not JSON');
    this.at += m[0].length;
    return numericText(m[0]);
  }

  private object(): string {
    this.at++;
    const members = new Map<string, string>();
    this.space();
    if (this.text[this.at] === '}') {
      this.at++;
      return '{}';
    }
    for (;;) {
      this.space();
      if (this.text[this.at] !== '"') throw new Error('not JSON');
      const key = this.string();
      this.space();
      if (this.text[this.at++] !== ':') throw new Error('not JSON');
      this.space();
      members.delete(key);
      members.set(key, this.value());
      this.space();
      const c = this.text[this.at++];
      if (c === '}') break;
      if (c !== ',') throw new Error('not JSON');
    }
    const keys = [...members.keys()].sort(compareKeys);
    return `{${keys.map((k) => `${quote(k)}: ${members.get(k)}`).join(', ')}}`;
  }

  private array(): string {
    this.at++;
    const items: string[] = [];
    this.space();
    if (this.text[this.at] === ']') {
      this.at++;
      return '[]';
    }
    for (;;) {
      this.space();
      items.push(this.value());
      this.space();
      const c = this.text[this.at++];
      if (c === ']') break;
      if (c !== ',') throw new Error('not JSON');
    }
    return `[${items.join(', ')}]`;
  }

  /** A JSON string literal at `at` → its value. */
  private string(): string {
    const start = this.at;
    let end = start + 1;
    while (end < this.text.length && this.text[end] !== '"') end += this.text[end] === '\\' ? 2 : 1;
    if (end >= this.text.length) throw new Error('not JSON');
    this.at = end + 1;
    const raw = this.text.slice(start + 1, end);
    // Without escapes the text is the value (the common case: no parse, no copy).
    const value = raw.includes('\\') ? (JSON.parse(this.text.slice(start, end + 1)) as string) : raw;
    if (!raw.includes('\\') && CONTROL.test(raw)) throw new Error('not JSON: a control character in a string');
    if (value.includes('\u0000')) throw new Error('jsonb refuses \\u0000');
    return value;
  }
}

/** jsonb's key order: shorter keys first, then byte order of their UTF-8. */
/** jsonb's key order for ASCII keys (nearly all): UTF-16 units are the bytes. */
function compareAscii(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

function compareKeys(a: string, b: string): number {
  if (!NON_ASCII.test(a) && !NON_ASCII.test(b)) return compareAscii(a, b);
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length - y.length || Buffer.compare(x, y);
}

function quote(value: string): string {
  if (!NEEDS_ESCAPE.test(value)) return `"${value}"`;
  let out = '"';
  for (const ch of value) {
    const escaped = ESCAPES[ch];
    if (escaped !== undefined) out += escaped;
    else if (ch < ' ') out += `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/** A JSON number as PostgreSQL's numeric prints it: the exponent applied, the scale kept, no -0. */
function numericText(literal: string): string {
  if (PLAIN_INTEGER.test(literal)) return literal === '-0' ? '0' : literal;
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(literal)!;
  const [, sign, int, frac = '', exp = '0'] = m;
  const e = Number(exp);
  const digits = (int + frac).replace(/^0+(?=\d)/, '');
  // The value is digits × 10^(e − frac.length); numeric keeps max(0, frac.length − e) decimals.
  const scale = Math.max(0, frac.length - e);
  const shift = e - frac.length + scale; // zeros appended before the decimal point is placed
  const all = digits + '0'.repeat(Math.max(0, shift));
  const padded = all.padStart(scale + 1, '0');
  const whole = padded.slice(0, padded.length - scale).replace(/^0+(?=\d)/, '');
  const text = scale > 0 ? `${whole}.${padded.slice(padded.length - scale)}` : whole;
  return sign === '-' && /[1-9]/.test(text) ? `-${text}` : text;
}
