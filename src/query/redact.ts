/**
 * PII redaction (docs/redaction.md): IPv4 addresses, IPv6 addresses and e-mail addresses inside string
 * values become `REDACTED`. It is pattern-based, so on a shape that could be either an address or
 * something else it redacts (a look-alike lost is cheaper than an address leaked), except for the
 * shapes below, which test/redact.test.ts pins:
 *
 * - IPv4: four dotted octets 0-255 (zero-padded `010` allowed), plus an optional `:port`. Not part
 *   of a longer dotted or digit run: `1.2.3.4.5`, `v10.2.1.4.5`, `2211.2.3.4` match nothing. A
 *   four-part version whose octets are all <= 255 (`15.1.0.147`) is redacted: it has the same
 *   shape. One exception: `Product/N.0.0.0` (Chrome's reduced User-Agent, in nearly every log row)
 *   is kept; `N.0.0.0` names a network, not a host.
 * - IPv6: full form (exactly 8 groups), compressed (one `::`, at most 7 groups), IPv4-mapped tail,
 *   `%zone`, and `[addr]` / `[addr]:port` where the brackets and port go too. The candidate must
 *   contain a decimal digit, so code scopes made of hex letters (`a::b`, `dead::beef`) stay; real
 *   addresses practically always have one (`fe80::`, `::1`, `2001:db8::`).
 * - MAC addresses are not redacted: docs/redaction.md names IPs and e-mails only, and their 6 groups can
 *   never be a valid IPv6 (8 groups or `::` needed). An 8-group colon-hex string (EUI-64, an 8-byte
 *   hex dump) is a valid full-form IPv6 and is redacted.
 * - E-mail: RFC 5322 dot-atom local part, `@`, dotted domain ending in a 2+ letter TLD; local
 *   part and domain may be internationalised (`josé@exämple.com`, RFC 6531) or punycode
 *   (`carol@xn--80akhbyknj4f.xn--p1ai`), the TLD a punycode label or letters of any script. `user@localhost` (no dot, no TLD) is kept:
 *   without a TLD it is as likely `name@host` in an ssh log or a `pkg@tag` handle as a mailbox. A
 *   "TLD" that is a file extension and no real TLD (`/img/logo@2x.png`) is kept too.
 *   `/ = ? & # |` are legal in a local part but in logs nearly always delimit what precedes an
 *   address (`/users/a@b.io`, `email=a@b.io`, `a|b|c@d.io`), so the local part starts after the
 *   last of them; leading quote-like characters are left outside too (`'a@b.io'` → `'REDACTED'`).
 *   In a URL with user info, `pass@host.tld` is an address shape and is redacted.
 */
import { RawJson } from '../store/values/pg-text.ts';

export const REDACTED = 'REDACTED';

// Speed: scanFrom() finds each ':' or '.' with indexOf and tries only the one start that can lead
// to it, instead of sliding a regex over every character. IPv4 is parsed by hand (matchIPv4); IPv6
// uses the sticky IPV6_AT at that start, after a cheap screen (mayBeIPv6).

// An octet 0-255, for the IPv4 tail of an IPv6 candidate; longest reading first.
const OCTET = String.raw`(?:25[0-5]|2[0-4]\d|1\d\d|0?\d?\d)`;
const IPV4 = String.raw`${OCTET}(?:\.${OCTET}){3}`;

// IPv6 candidates are found loosely and judged by isIPv6(). The lookahead demands a ':' within the
// first 5 characters, the {2,39} cap bounds backtracking on long hex/colon runs, and the
// lookbehind/lookahead keep a candidate off longer runs (`std::`, `10:15:30.5`).
const CORE6 = String.raw`(?=[0-9A-Fa-f]{0,4}:)[0-9A-Fa-f:]{2,39}(?:${IPV4})?`;
const ZONE = String.raw`(?:%\w+(?:[.-]\w+)*)?`;
const IPV6_AT = new RegExp(
  String.raw`\[(${CORE6})${ZONE}\](?::\d{1,5}(?!\d))?` + // [addr] or [addr]:port, taken whole
    String.raw`|(?<![\w:.])(${CORE6})${ZONE}(?![\w:]|\.\d)`,
  'y',
);

// RFC 5322 atext, and with RFC 6531/6532 any letter, mark or digit beyond ASCII (`josé@…`); the
// lookbehind starts a local part only at the start of an atext run, which also keeps scanning
// linear on long base64-like runs.
const ATEXT = "A-Za-z0-9!#$%&'*+/=?^_`{|}~\\-\\p{L}\\p{M}\\p{N}";
// Labels of letters, marks and digits in any script (an IDN as typed: `exämple`) or their ASCII
// form (`xn--80akhbyknj4f`). The top-level label: 2+ ASCII letters, a punycode `xn--` label
// (`xn--p1ai`), or 2+ letters of another script (`рф`).
const LABEL = String.raw`[\p{L}\p{N}](?:[\p{L}\p{M}\p{N}-]{0,61}[\p{L}\p{M}\p{N}])?`;
const TLD = String.raw`(?:[A-Za-z]{2,63}|xn--[A-Za-z0-9-]{1,59}|\p{L}[\p{L}\p{M}]{1,62})`;
const DOMAIN = String.raw`(?:${LABEL}\.)+${TLD}`;
const EMAIL_RE = new RegExp(
  String.raw`(?<![${ATEXT}]|[${ATEXT}]\.)[${ATEXT}]+(?:\.[${ATEXT}]+)*@${DOMAIN}(?![\p{L}\p{M}\p{N}_-]|\.[\p{L}\p{N}])`,
  'gu',
);
const LOCAL_DELIMITERS = '/=?&#|';
// File extensions that are not TLDs: `/img/logo@2x.png` is an asset path, never a mailbox.
const FILE_EXTENSION_TLD = /\.(?:png|jpe?g|gif|svg|webp|avif|ico|css|js|map|json|html?|txt|xml|pdf|php)$/i;

// Percent-encoded `@`, `:` and `.` (a URL's query string: `?email=bob%40example.com`).
const PERCENT_SEPARATORS = /%(?:40|3a|2e)/i;
const PERCENT_DECODE: Readonly<Record<string, string>> = { '40': '@', '3a': ':', '2e': '.' };

/**
 * Replace every IPv4 (with optional port), IPv6 and e-mail address in `s` with `REDACTED`, also
 * when percent-encoded. A value whose decoded form holds an address comes back in that decoded
 * form, redacted (only `%40`, `%3A` and `%2E` are decoded); any other value is returned unchanged.
 */
export function redactString(s: string): string {
  const plain = redactPlain(s);
  if (!plain.includes('%') || !PERCENT_SEPARATORS.test(plain)) return plain;
  const decoded = plain.replace(/%(40|3a|2e)/gi, (_m, hex: string) => PERCENT_DECODE[hex.toLowerCase()]!);
  const redacted = redactPlain(decoded);
  return redacted === decoded ? plain : redacted;
}

function redactPlain(s: string): string {
  // Fast path: every shape needs a ':' or a '.'; most values (ids, methods, status text) have
  // neither and cost two short scans.
  const colon = s.includes(':');
  const dot = s.includes('.');
  if (!colon && !dot) return s;
  let out = s;
  // IPv6 first: an IPv4-mapped address would otherwise lose only its IPv4 tail.
  if (colon) out = scanFrom(out, ':', probeIPv6);
  if (dot) out = scanFrom(out, '.', probeIPv4);
  if (dot && out.includes('@')) out = out.replace(EMAIL_RE, redactEmailMatch);
  return out;
}

/** Redact strings at any depth of arrays and plain objects; keys, numbers, booleans, null stay. */
export function redactValue(v: unknown): unknown {
  if (typeof v === 'string') return redactString(v);
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) return redactArray(v);
  if (isPlainObject(v)) return redactObject(v);
  // jsonb the engine left as text (store/values/pg-text.ts): redacted in place, so it stays as PostgreSQL prints it.
  if (v instanceof RawJson) return redactJsonText(v);
  // Dates, Buffers and other instances serialise without free text; leave them as they are.
  return v;
}

// A JSON string literal, and whether it is an object key (a `:` follows).
const JSON_STRING = /"(?:[^"\\]|\\.)*"(\s*:)?/g;

/**
 * Redact the string values inside JSON text, leaving keys, numbers, spacing and order as they are
 * (regression: redacted answers printed `metadata` compactly, unlike the jsonb the others print).
 */
function redactJsonText(raw: RawJson): RawJson {
  let changed = false;
  const text = raw.text.replace(JSON_STRING, (literal: string, key: string | undefined) => {
    if (key !== undefined) return literal;
    const before = JSON.parse(literal) as string;
    const after = redactString(before);
    if (after === before) return literal;
    changed = true;
    return JSON.stringify(after);
  });
  return changed ? new RawJson(text) : raw;
}

/** Redact every row; rows and nested values are copied only where something changed. */
export function redactRows<T>(rows: T[]): T[] {
  return redactArray(rows) as T[];
}

function redactArray(a: readonly unknown[]): unknown[] {
  let out: unknown[] | undefined;
  for (let i = 0; i < a.length; i++) {
    const before = a[i];
    const after = redactValue(before);
    if (after !== before) {
      out ??= a.slice();
      out[i] = after;
    }
  }
  return out ?? (a as unknown[]);
}

function redactObject(o: Record<string, unknown>): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const key of Object.keys(o)) {
    const before = o[key];
    const after = redactValue(before);
    if (after !== before) {
      // The spread copies an own `__proto__` key (JSON.parse makes one) as data, so the assignment
      // below writes that own property instead of calling the prototype setter.
      out ??= { ...o };
      out[key] = after;
    }
  }
  return out ?? o;
}

function isPlainObject(v: object): v is Record<string, unknown> {
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** A candidate found by a probe: `s[start, end)`, to be replaced or (keep) skipped whole. */
interface Hit {
  start: number;
  end: number;
  keep: boolean;
}

/**
 * Rebuild `s` with each address that `probe` finds from a `trigger` character replaced. Like a
 * global replace, hits never overlap and a kept (rejected) candidate is skipped as a whole.
 */
function scanFrom(s: string, trigger: string, probe: (s: string, at: number) => Hit | null): string {
  let out = '';
  let copied = 0; // s[0, copied) is in `out` already
  let resume = 0; // end of the last hit, replaced or kept
  for (let at = s.indexOf(trigger); at !== -1; at = s.indexOf(trigger, Math.max(at + 1, resume))) {
    const hit = probe(s, at);
    if (hit === null || hit.start < resume) continue;
    resume = hit.end;
    if (!hit.keep) {
      out += s.slice(copied, hit.start) + REDACTED;
      copied = hit.end;
    }
  }
  return copied === 0 ? s : out + s.slice(copied);
}

/** The IPv4 address (with optional port) whose first octet ends at the '.' at `dot`, if any. */
function probeIPv4(s: string, dot: number): Hit | null {
  let start = dot;
  while (start > 0 && dot - start < 3 && isDigit(s.charCodeAt(start - 1))) start--;
  // Not inside a longer digit, word or dotted run (`2211.2.3.4`, `v1.2.3.4`, `1.2.3.4.5`).
  // `_` separates (`client_198.51.100.24`): log keys join words to addresses with it.
  if (start === dot || isAlnumOrDot(s.charCodeAt(start - 1))) return null;
  const end = matchIPv4(s, start);
  if (end === -1) return null;
  // `Chrome/120.0.0.0`: a product version in a User-Agent, see the module comment.
  const keep = s.startsWith('.0.0.0', end - 6) && s.charCodeAt(start - 1) === 0x2f && isLetter(s.charCodeAt(start - 2));
  return { start, end, keep };
}

/**
 * End of the dotted quad (octets 0-255, up to 3 digits each) at `start`, with a `:port` of 1-5
 * digits when one follows, or -1. Nothing may follow but a non-word character that is not `.digit`.
 */
function matchIPv4(s: string, start: number): number {
  let i = start;
  for (let octet = 0; octet < 4; octet++) {
    if (octet > 0 && s.charCodeAt(i++) !== 0x2e) return -1;
    let value = 0;
    const first = i;
    while (i - first < 3 && isDigit(s.charCodeAt(i))) value = value * 10 + s.charCodeAt(i++) - 0x30;
    // A longer or larger octet has no shorter reading either: a digit would follow it.
    if (i === first || value > 255) return -1;
  }
  if (s.charCodeAt(i) === 0x3a) {
    let port = i + 1;
    while (port - i <= 5 && isDigit(s.charCodeAt(port))) port++;
    if (port > i + 1 && endsToken(s, port)) return port;
  }
  return endsToken(s, i) ? i : -1;
}

function endsToken(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  // `_` ends an address too (`198.51.100.25_port`).
  return !(isLetter(c) || isDigit(c)) && !(c === 0x2e && isDigit(s.charCodeAt(i + 1)));
}

/** The IPv6 candidate whose first ':' is at `colon` (bracketed or not), kept unless valid. */
function probeIPv6(s: string, colon: number): Hit | null {
  let start = colon;
  while (start > 0 && colon - start < 4 && isHex(s.charCodeAt(start - 1))) start--;
  // Only `::` may begin an address; `https:` and `key: value` stop here.
  if (start === colon && s.charCodeAt(colon + 1) !== 0x3a) return null;
  const before = s.charCodeAt(start - 1);
  if (before !== 0x5b && (isWordOrDot(before) || before === 0x3a)) return null; // the lookbehind
  if (!mayBeIPv6(s, colon)) return null;
  let m: RegExpExecArray | null = null;
  if (before === 0x5b) {
    IPV6_AT.lastIndex = start - 1;
    m = IPV6_AT.exec(s);
  }
  if (m === null) {
    IPV6_AT.lastIndex = start;
    m = IPV6_AT.exec(s);
  }
  if (m === null) return null;
  return { start: m.index, end: m.index + m[0].length, keep: !isIPv6(m[1] ?? m[2] ?? '') };
}

/**
 * Cheap screen before the regex: a valid address has a `::` or, written in full, at least 6
 * colons (7, or 6 before an IPv4 tail). Clock times, `key:value` and MACs stop here.
 */
function mayBeIPv6(s: string, colon: number): boolean {
  let colons = 0;
  for (let i = colon; i < s.length && i - colon < 40; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x3a) {
      if (s.charCodeAt(i + 1) === 0x3a) return true;
      colons++;
    } else if (!isHex(c)) {
      break;
    }
  }
  return colons >= 6;
}

/**
 * True when `text` (no brackets, no zone) is a valid IPv6 address with a decimal digit: groups of
 * 1-4 hex digits, an IPv4 tail counting as two, exactly 8 groups or at most 7 around one `::`.
 */
function isIPv6(text: string): boolean {
  const n = text.length;
  let groups = 0;
  let compressed = false;
  let decimal = false;
  let i = 0;
  if (text.startsWith('::')) {
    compressed = true;
    i = 2;
    if (i === n) return false; // `::` alone
  }
  for (;;) {
    const start = i;
    while (i < n && i - start < 5 && isHex(text.charCodeAt(i))) {
      decimal ||= isDigit(text.charCodeAt(i));
      i++;
    }
    if (text.charCodeAt(i) === 0x2e) {
      // The group just read opens the IPv4 tail, which must end the text.
      if (matchIPv4(text, start) !== n) return false;
      groups += 2;
      break;
    }
    if (i === start || i - start > 4) return false; // empty group (`:::`, lone ':') or too long
    groups++;
    if (i === n) break;
    if (text.charCodeAt(i++) !== 0x3a) return false;
    if (text.charCodeAt(i) === 0x3a) {
      if (compressed) return false;
      compressed = true;
      if (++i === n) break;
    } else if (i === n) {
      return false; // trailing single ':'
    }
  }
  return decimal && (compressed ? groups <= 7 : groups === 8);
}

function redactEmailMatch(match: string): string {
  if (FILE_EXTENSION_TLD.test(match)) return match;
  const at = match.indexOf('@');
  let start = 0;
  for (let i = at - 1; i >= 0; i--) {
    if (LOCAL_DELIMITERS.includes(match.charAt(i))) {
      start = i + 1;
      break;
    }
  }
  // Leading ASCII punctuation (quotes) stays outside; a letter of any script starts the address.
  while (start < at && match.charCodeAt(start) < 0x80 && !isWordChar(match.charCodeAt(start))) start++;
  return start === at ? match : match.slice(0, start) + REDACTED;
}

function isLetter(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isHex(c: number): boolean {
  return isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

function isWordChar(c: number): boolean {
  return isLetter(c) || isDigit(c) || c === 0x5f;
}

function isAlnumOrDot(c: number): boolean {
  return isLetter(c) || isDigit(c) || c === 0x2e;
}

// The `(?<![\w.])` boundary by hand; NaN (before the string start) is neither.
function isWordOrDot(c: number): boolean {
  return isWordChar(c) || c === 0x2e;
}
