/**
 * The fenced blocks of a Markdown page and what the documentation runner does with each, read from
 * the HTML comment on the line before the fence (invisible on GitHub):
 *
 *   <!-- docs-test: run -->                 run it in the session, command by command
 *   <!-- docs-test: run; expect 400 -->     … and its curl calls answer that status (default: 2xx)
 *   <!-- docs-test: output -->              what the previous `run` block's last command prints; compared loosely
 *   <!-- docs-test: psql URL -->            an SQL block, run with `psql URL` (URL as a reader would fill it in)
 *   <!-- docs-test: write PATH -->          a file's content, written to PATH in the checkout
 *   <!-- docs-test: not run: REASON -->     shown for the reader, not run here, and why
 *
 * A shell or SQL block without a marker is an error, and so is an unmarked block right after a
 * `run` block (an output nobody compares): nothing a reader is told to type goes unchecked silently.
 */

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export type Action =
  | { kind: 'run'; expectStatus: number | null }
  | { kind: 'output' }
  | { kind: 'psql'; url: string }
  | { kind: 'write'; path: string }
  | { kind: 'not-run'; reason: string }
  | { kind: 'none' };

export interface Block {
  page: string;
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  /** The content, with the fence's own indentation removed. */
  text: string;
  action: Action;
}

/** Languages a reader types into a terminal or a database prompt. */
const COMMAND_LANGS = new Set(['sh', 'bash', 'shell', 'console', 'sql']);

const MARKER = /^\s*<!--\s*docs-test:\s*(.*?)\s*-->\s*$/;

export function parseAction(marker: string): Action {
  let m: RegExpExecArray | null;
  if ((m = /^run(?:;\s*expect\s+(\d{3}))?$/.exec(marker))) return { kind: 'run', expectStatus: m[1] === undefined ? null : Number(m[1]) };
  if (marker === 'output') return { kind: 'output' };
  if ((m = /^psql\s+(\S+)$/.exec(marker))) return { kind: 'psql', url: m[1]! };
  if ((m = /^write\s+(\S+)$/.exec(marker))) return { kind: 'write', path: m[1]! };
  if ((m = /^not run:\s*(\S.*)$/.exec(marker))) return { kind: 'not-run', reason: m[1]! };
  throw new Error(`unknown docs-test marker "${marker}" (run, run; expect NNN, output, psql URL, write PATH, not run: REASON)`);
}

/** Every fenced block of `markdown`, with its marker's action. Throws on a malformed fence or marker. */
export function readBlocks(page: string, markdown: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(\S*)\s*$/.exec(lines[i]!);
    if (open === null) continue;
    const indent = open[1]!.length;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^\s*```\s*$/.test(lines[i]!); i++) body.push(lines[i]!.slice(Math.min(indent, /^\s*/.exec(lines[i]!)![0].length)));
    if (i >= lines.length) throw new Error(`${page}:${start + 1}: the fence is never closed`);
    let before = start - 1;
    while (before >= 0 && lines[before]!.trim() === '') before--;
    const marker = before >= 0 ? MARKER.exec(lines[before]!) : null;
    let action: Action;
    try {
      action = marker === null ? { kind: 'none' } : parseAction(marker[1]!);
    } catch (e) {
      throw new Error(`${page}:${before + 1}: ${(e as Error).message}`);
    }
    blocks.push({ page, line: start + 1, lang: open[2]!, text: body.join('\n'), action });
  }
  return blocks;
}

/** What is wrong with the markers of one page's blocks (empty: nothing). */
export function markerProblems(blocks: readonly Block[]): string[] {
  const problems: string[] = [];
  blocks.forEach((b, i) => {
    const at = `${b.page}:${b.line}`;
    const previous = blocks[i - 1];
    if (b.action.kind === 'none') {
      if (COMMAND_LANGS.has(b.lang)) problems.push(`${at}: a ${b.lang} block without a docs-test marker (run, psql, write or "not run: why")`);
      else if (previous?.action.kind === 'run' && previous.line < b.line && follows(previous, b)) {
        problems.push(`${at}: the block after a run block needs a marker (output, or "not run: why")`);
      }
    }
    if (b.action.kind === 'output' && previous?.action.kind !== 'run') problems.push(`${at}: an output block that does not follow a run block`);
    if (b.action.kind === 'psql' && b.lang !== 'sql') problems.push(`${at}: a psql marker on a ${b.lang || 'plain'} block`);
    if (b.action.kind === 'run' && !['sh', 'bash', 'shell'].includes(b.lang)) problems.push(`${at}: a run marker on a ${b.lang || 'plain'} block`);
  });
  return problems;
}

/** Whether `b` comes right after `a` (only its closing fence and blank lines between). */
function follows(a: Block, b: Block): boolean {
  return b.line - (a.line + a.text.split('\n').length + 1) <= 2;
}

/**
 * The commands of a shell block: comment-only lines dropped, `\` continuations joined, and a
 * here-document kept with the line that opens it.
 */
export function commands(text: string): string[] {
  const out: string[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    let cmd = lines[i]!;
    if (cmd.trim() === '' || cmd.trim().startsWith('#')) continue;
    while ((cmd.endsWith('\\') || openQuote(cmd)) && i + 1 < lines.length) cmd += `\n${lines[++i]}`;
    const heredoc = /<<-?\s*'?"?(\w+)'?"?/.exec(cmd);
    if (heredoc !== null) {
      while (i + 1 < lines.length) {
        cmd += `\n${lines[++i]}`;
        if (lines[i]!.trim() === heredoc[1]) break;
      }
    }
    out.push(cmd);
  }
  return out;
}

/** Whether shell text ends inside a quoted string (a quoted value that goes on to the next line). */
function openQuote(text: string): boolean {
  let quote: "'" | '"' | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote === "'") {
      if (c === "'") quote = null;
    } else if (c === '\\') i++;
    else if (quote === '"') {
      if (c === '"') quote = null;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(text[i - 1]!))) {
      const eol = text.indexOf('\n', i);
      if (eol < 0) break;
      i = eol;
    }
  }
  return quote !== null;
}

/** README.md first, then docs/ in name order: the order a reader meets them. */
export function pages(root = ROOT): string[] {
  return ['README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
}

export function allBlocks(root = ROOT): Block[] {
  return pages(root).flatMap((p) => readBlocks(p, readFileSync(join(root, p), 'utf8')));
}

/**
 * A service-starting command: its last `&&` part starts the service (`npm start`, or
 * `node … dist/main.js [serve]`), optionally after variables; what comes before runs first.
 */
export function serviceCommand(command: string): { before: string | null; service: string } | null {
  const parts = command.replace(/\s*\\\n\s*/g, ' ').replace(/\s+#.*$/, '').split(/\s*&&\s*/);
  const last = parts[parts.length - 1]!.trim();
  const words = last.split(/\s+/).filter((w) => !/^[A-Z_][A-Z0-9_]*=/.test(w));
  const isService =
    (words.length === 2 && words[0] === 'npm' && words[1] === 'start') ||
    (words[0] === 'node' && (words.at(-1) === 'dist/main.js' || (words.at(-2) === 'dist/main.js' && words.at(-1) === 'serve')));
  if (!isService) return null;
  return { before: parts.length > 1 ? parts.slice(0, -1).join(' && ') : null, service: last };
}
