import assert from 'node:assert/strict';
import { test } from 'node:test';
import { jsonString } from '../../src/shared/json-string.ts';
import { HOSTILE_STRINGS } from '../support/hostile-strings.ts';

test('jsonString writes exactly what JSON.stringify writes, for plain and hostile strings alike', () => {
  for (const s of HOSTILE_STRINGS) {
    assert.equal(jsonString(s), JSON.stringify(s), JSON.stringify(s));
    assert.equal(JSON.parse(jsonString(s)), s);
  }
});
