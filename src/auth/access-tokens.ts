import { createHash } from 'node:crypto';

/**
 * One accepted access token. Only its SHA-256 is kept: a plain token and a `sha256:<hex>` entry end
 * up identical, so the comparison in auth.ts is the same for both and a hashed file holds no secret.
 */
export interface TokenGrant {
  readonly digest: Buffer;
  /** Stored query names or ids this token may call, as written; null means every stored query. */
  readonly scope: readonly string[] | null;
  /** Where the grant was declared, for start-up messages ("ACCESS_TOKENS_FILE line 3"); never the token. */
  readonly source: string;
}

/** A token value that cannot be accepted; `message` names where it came from. */
export class TokenFormatError extends Error {
  override name = 'TokenFormatError';
}

const MIN_TOKEN_CHARS = 16;
const HASHED = /^sha256:([0-9a-fA-F]{64})$/;

/** SHA-256 of a presented or configured token. */
export function tokenDigest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** A grant for one plain or `sha256:<hex>` token (scope null = all stored queries). */
export function parseGrant(value: string, source: string, scope: readonly string[] | null = null): TokenGrant {
  const hashed = HASHED.exec(value);
  let digest: Buffer;
  if (hashed) {
    digest = Buffer.from(hashed[1]!.toLowerCase(), 'hex');
  } else {
    // A mistyped hash must not silently become a (guessable) plain token.
    if (/^sha256:/i.test(value)) throw new TokenFormatError(`${source}: a sha256: entry needs exactly 64 hex digits`);
    if (value.length < MIN_TOKEN_CHARS) throw new TokenFormatError(`${source}: every token must be at least ${MIN_TOKEN_CHARS} characters (or sha256:<64 hex digits>)`);
    if (/\s/.test(value)) throw new TokenFormatError(`${source}: tokens cannot contain whitespace`);
    digest = tokenDigest(value);
  }
  return Object.freeze({ digest, scope: scope === null ? null : Object.freeze([...scope]), source });
}

/** `ACCESS_TOKENS`: comma-separated tokens, each allowed every stored query. */
export function parseTokenList(list: string, source = 'ACCESS_TOKENS'): TokenGrant[] {
  return list
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '')
    .map((t) => parseGrant(t, source));
}

/**
 * `ACCESS_TOKENS_FILE`: one grant a line, `<token-or-sha256:hex> [name-or-id,…]`. No list means every
 * stored query; blank lines and lines starting with `#` are skipped.
 */
export function parseTokenFile(text: string, source = 'ACCESS_TOKENS_FILE'): TokenGrant[] {
  const grants: TokenGrant[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const where = `${source} line ${i + 1}`;
    const space = line.search(/\s/);
    const token = space === -1 ? line : line.slice(0, space);
    const rest = space === -1 ? '' : line.slice(space).trim();
    let scope: string[] | null = null;
    if (rest !== '') {
      scope = rest.split(',').map((s) => s.trim());
      if (scope.some((s) => s === '' || /\s/.test(s))) throw new TokenFormatError(`${where}: the scope must be stored query names or ids separated by commas`);
    }
    grants.push(parseGrant(token, where, scope));
  });
  return grants;
}
