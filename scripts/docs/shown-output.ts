/**
 * Whether what a page shows as a command's output is what the command printed, loosely where
 * values vary. The shown text becomes a pattern:
 * - `…` stands for anything (the rest of a list, a long value);
 * - a quoted string or a bare word holding a digit (an id, a time, a count, an ETag) stands for
 *   any string or word;
 * - numbers stand for any number; whitespace for any whitespace (or none);
 * - everything else (keys, codes, words, punctuation) must be there as shown.
 * An HTTP response (`curl -i`) is compared by its status code, each shown header (present, value
 * by the rules above; other headers may be there too) and its body.
 */

const TOKEN = /…|"(?:[^"\\]|\\.)*"|[\w.~+/=@:-]+|\s+|[^]/gu;

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** The pattern (source) of shown text, by the rules above. */
export function shownPattern(shown: string): string {
  let out = '';
  for (const [t] of shown.matchAll(TOKEN)) {
    if (t === '…') out += '[^]*?';
    else if (/^\s+$/.test(t)) out += '\\s*';
    else if (t.startsWith('"') && t.length > 1) out += /\d|…/.test(t) ? '"(?:[^"\\\\]|\\\\.)*"' : escape(t);
    else if (/\d/.test(t)) out += '[\\w.~+/=@:-]+';
    else out += escape(t);
  }
  return out;
}

function matchesText(shown: string, actual: string): boolean {
  return new RegExp(`^\\s*${shownPattern(shown.trim())}\\s*$`, 'u').test(actual.trim());
}

function splitHttp(text: string): { status: string; headers: Map<string, string>; body: string } {
  const normal = text.replace(/\r\n/g, '\n');
  const end = normal.indexOf('\n\n');
  const head = (end < 0 ? normal : normal.slice(0, end)).split('\n');
  const headers = new Map<string, string>();
  for (const line of head.slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { status: /^HTTP\/\S+\s+(\d{3})/.exec(head[0] ?? '')?.[1] ?? '', headers, body: end < 0 ? '' : normal.slice(end + 2) };
}

/** Why `actual` is not what `shown` shows, or null when it is. */
export function outputMismatch(shown: string, actual: string): string | null {
  if (!shown.trimStart().startsWith('HTTP/')) {
    return matchesText(shown, actual) ? null : 'the output differs from the one shown';
  }
  const want = splitHttp(shown.trim());
  const got = splitHttp(actual.trimStart());
  if (want.status !== got.status) return `status ${got.status || '(none)'}, shown ${want.status}`;
  for (const [name, value] of want.headers) {
    const have = got.headers.get(name);
    if (have === undefined) return `no ${name} header`;
    if (!matchesText(value, have)) return `${name}: ${have}, shown ${value}`;
  }
  return matchesText(want.body, got.body) ? null : 'the body differs from the one shown';
}
