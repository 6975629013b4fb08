/** Answer formats (src/query/formats.ts): negotiation table, CSV fields, and each format made once per answer. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpError } from '../../src/shared/errors.ts';
import { RawJson } from '../../src/store/values/pg-text.ts';
import { encodeResult } from '../../src/query/encode-result.ts';
import { acceptMismatch, formatParam, negotiate, type Format } from '../../src/query/formats.ts';
import { encodedResult, inFormat } from '../../src/query/encoded-result.ts';

// [format parameter, Accept, chosen format or 406]
const NEGOTIATION: [Format | null, string | undefined, Format | 406][] = [
  [null, undefined, 'json'],
  [null, '*/*', 'json'],
  [null, 'application/json', 'json'],
  [null, 'text/csv', 'csv'],
  [null, 'application/x-ndjson', 'ndjson'],
  [null, 'application/ndjson', 'ndjson'],
  [null, 'application/jsonl', 'ndjson'],
  [null, 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'json'],
  [null, 'text/csv;q=0.2, application/json;q=0.8', 'json'],
  [null, 'TEXT/CSV', 'csv'],
  [null, 'text/*;q=0.5, application/json;q=0.4', 'csv'],
  [null, 'application/*', 'json'],
  [null, 'text/html', 406],
  [null, 'image/png, text/plain', 406],
  [null, 'application/json;q=0', 406],
  [null, 'text/csv;q=abc', 406],
  ['csv', 'text/html', 'csv'],
  ['ndjson', undefined, 'ndjson'],
];

for (const [param, accept, expected] of NEGOTIATION) {
  test(`negotiate(format=${param}, Accept: ${accept}) → ${expected}`, () => {
    if (expected === 406) assert.throws(() => negotiate(param, accept), (err: HttpError) => err.code === 'not_acceptable' && err.status === 406);
    else assert.equal(negotiate(param, accept), expected);
  });
}

test('COMPAT=logflare: an Accept naming no format answers JSON (Logflare does not negotiate); the format parameter still refuses', () => {
  assert.equal(negotiate(null, 'text/html', acceptMismatch('logflare')), 'json');
  assert.equal(negotiate(null, 'text/csv', acceptMismatch('logflare')), 'csv');
  assert.throws(() => negotiate(null, 'text/html', acceptMismatch(null)), (err: HttpError) => err.code === 'not_acceptable');
  assert.throws(() => formatParam('xml'), (err: HttpError) => err.code === 'not_acceptable');
});

test('the format parameter: json, csv, ndjson; anything else 406 naming them', () => {
  assert.equal(formatParam('csv'), 'csv');
  for (const bad of ['CSV', 'xml', 'json ', 'tsv']) assert.throws(() => formatParam(bad), (err: HttpError) => err.code === 'not_acceptable' && /json, csv, ndjson/.test(err.message));
});

test('CSV: quoted only where RFC 4180 needs it, quotes doubled, nested JSON as stored, null empty; NDJSON rows as in the JSON body', () => {
  const rows = [
    { a: 'plain', b: 'x,y', c: 'say "hi"', d: 'two\nlines', e: null, f: 12, g: new RawJson('{"k": [1, 2]}'), h: '' },
    { a: 'ü', b: '', c: 'cr\r', d: ' sp ', e: true, f: 1.5, g: new RawJson('[]'), h: 'é' },
  ];
  const result = encodedResult(encodeResult(rows), 2, false, 0, Object.keys(rows[0]!));
  assert.equal(
    inFormat(result, 'csv').body.toString(),
    'a,b,c,d,e,f,g,h\r\nplain,"x,y","say ""hi""","two\nlines",,12,"{""k"": [1, 2]}",\r\nü,,"cr\r", sp ,true,1.5,[],é\r\n',
  );
  assert.equal(
    inFormat(result, 'ndjson').body.toString(),
    '{"a":"plain","b":"x,y","c":"say \\"hi\\"","d":"two\\nlines","e":null,"f":12,"g":{"k": [1, 2]},"h":""}\n{"a":"ü","b":"","c":"cr\\r","d":" sp ","e":true,"f":1.5,"g":[],"h":"é"}\n',
  );
});

test('each format of an answer is made once and kept with it; each has its own ETag; the JSON is the answer itself', () => {
  const result = encodedResult(encodeResult([{ a: 1 }]), 1, true, 0, ['a']);
  const csv = inFormat(result, 'csv');
  assert.equal(inFormat(result, 'csv'), csv);
  assert.equal(inFormat(result, 'json'), result);
  const etags = new Set([result.etag, csv.etag, inFormat(result, 'ndjson').etag]);
  assert.equal(etags.size, 3);
  assert.deepEqual(csv.headers.slice(2), ['Vary', 'Accept', 'X-Result-Truncated', 'true']);
});

test('no rows: CSV is the header of the declared columns; NDJSON is empty', () => {
  const result = encodedResult(encodeResult([]), 0, false, 0, ['timestamp', 'n']);
  assert.equal(inFormat(result, 'csv').body.toString(), 'timestamp,n\r\n');
  assert.equal(inFormat(result, 'ndjson').body.length, 0);
});
