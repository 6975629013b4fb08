/**
 * jsonb-text.ts against PostgreSQL itself (PGlite): for every input, the text `$1::jsonb::text`
 * prints, or null where PostgreSQL refuses the input. ClickHouse stores `metadata` in this form, so
 * both engines answer with the same bytes.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { PGlite } from '@electric-sql/pglite';
import { jsonbOfValue, jsonbText } from '../../src/store/values/jsonb-text.ts';

const VALID = [
  '{"b":1,"a":2,"aa":[1,2.50,1e2,-0,1.23e-2,0.0,-0.0,1E+2,12e-1,100e-2,5e0,-12,0]}',
  '{"a":{"z":null,"y":{}},"a":3}',
  '{"s":"é\\u00e9\\n\\t\\"\\\\/\\u0001 x \\ud83d\\ude00 😀"}',
  '{"é":1,"z":2,"ab":3,"b":4,"ü":5,"zz":6}',
  '  [ 1 , [ ] , { } , "x" , true , false , null ]  ',
  '{"big":9007199254740993,"huge":123456789012345678901234567890,"tiny":1e-20,"neg":-1.5E-3}',
  '{"k":true,"kk":false}',
  '"plain"',
  '0e5',
  '{"":1,"a b":{"c\\"d":[{"x":[]}]}}',
  '{"url":"https://a.example.co/rest/v1/t?select=*&id=eq.1"}',
];
const INVALID = ['{"a":1,}', '[1 2]', '"\u0001"', 'NaN', '01', '1.', '.5', '+1', "{'a':1}", '', '{"a"}', '{"a":1} x', '{"a":"\\u0000"}', '"\\x"'];

let db: PGlite;
before(async () => {
  db = new PGlite();
});
after(async () => {
  await db.close();
});

for (const input of [...VALID, ...INVALID]) {
  test(`jsonb's text of ${JSON.stringify(input).slice(0, 60)}`, async () => {
    let expected: string | null;
    try {
      expected = ((await db.query<{ t: string }>('select $1::jsonb::text as t', [input])).rows[0]!.t);
    } catch {
      expected = null;
    }
    assert.equal(jsonbText(input), expected);
    // Ingest's path: from the value JSON.parse made, as PostgreSQL stores that value's JSON.stringify.
    if (expected !== null) {
      const value: unknown = JSON.parse(input);
      const stored = (await db.query<{ t: string }>('select $1::jsonb::text as t', [JSON.stringify(value)])).rows[0]!.t;
      assert.equal(jsonbOfValue(value), stored);
    }
    assert.equal(expected === null, INVALID.includes(input), 'the table says which inputs PostgreSQL refuses');
  });
}
