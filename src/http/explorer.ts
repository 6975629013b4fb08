/**
 * The explorer page (`GET /`, public/): read once at start-up and served from memory, each file
 * with its ETag and a Content-Security-Policy that allows only this origin's own script, style
 * and API (no inline code, no other host). The page itself calls the API with the token it is
 * given, like any other client.
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { strongEtag } from '../query/formats.ts';
import { etagMatches, type HeaderList } from './respond.ts';

const PUBLIC_DIR = new URL('../../public/', import.meta.url);

/** Path → file in public/ and its type. */
const FILES: readonly [string, string, string][] = [
  ['/', 'index.html', 'text/html; charset=utf-8'],
  ['/explorer/explorer.js', 'explorer.js', 'text/javascript; charset=utf-8'],
  ['/explorer/explorer.css', 'explorer.css', 'text/css; charset=utf-8'],
  ['/explorer/icon.svg', 'icon.svg', 'image/svg+xml'],
];

export const EXPLORER_PATHS: readonly string[] = FILES.map(([path]) => path);

const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

interface Asset {
  body: Buffer;
  etag: string;
  headers: readonly (string | number)[];
}

export type ExplorerAssets = ReadonlyMap<string, Asset>;

/** Read the page's files (at start-up; a missing file stops start-up). */
export function loadExplorer(): ExplorerAssets {
  return new Map(
    FILES.map(([path, file, type]) => {
      const body = readFileSync(new URL(file, PUBLIC_DIR));
      const etag = strongEtag(body);
      const headers = Object.freeze([
        'Content-Type', type,
        'ETag', etag,
        // Revalidated each time (a 304 when unchanged), so a new version is never hidden by a stale copy.
        'Cache-Control', 'no-cache',
        'Content-Security-Policy', CSP,
        'X-Content-Type-Options', 'nosniff',
        'Referrer-Policy', 'no-referrer',
      ]);
      return [path, { body, etag, headers }] as const;
    }),
  );
}

/** Answer a GET/HEAD of one of the page's paths. */
export function sendAsset(req: IncomingMessage, res: ServerResponse, asset: Asset, extra: HeaderList): void {
  if (etagMatches(req.headers['if-none-match'], asset.etag)) {
    res.writeHead(304, [...extra, ...asset.headers]);
    res.end();
    return;
  }
  res.writeHead(200, [...extra, ...asset.headers, 'Content-Length', asset.body.length]);
  res.end(req.method === 'HEAD' ? undefined : asset.body);
}
