import { PGlite } from '@electric-sql/pglite';
import { jsonbText } from './src/store/jsonb-text.ts';
const db = new PGlite();
const cases = ['{"b":1,"a":2,"aa":[1,2.50,1e2,-0,1.23e-2,0.0,-0.0,1E+2,12e-1,100e-2,5e0]}', '{"a":{"z":null,"y":{}},"a":3}', '{"s":"é\\u00e9\\n\\t\\"\\\\/\\u0001 x"}', '[]', '{"k":true,"kk":false}', '123456789012345678901234567890', '{"é":1,"z":2,"ab":3,"b":4}', '"x"', '{"big":9007199254740993}', '-1.5E-3', '0e5'];
let bad = 0;
for (const c of cases) {
  const r = await db.query(`select $1::jsonb::text as t`, [c]);
  const pg = (r.rows[0] as any).t, mine = jsonbText(c);
  if (pg !== mine) { bad++; console.log('DIFF', c, '\n pg  ', pg, '\n mine', mine); }
}
console.log('bad', bad, jsonbText('{"a":'), jsonbText('{"a":"\\u0000"}'));
