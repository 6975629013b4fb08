// The OpenAPI 3.1 document generated from the registry: valid structure, every stored query, exact parameter schemas.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import type { Principal } from '../../src/auth/authenticator.ts';
import { ERRORS } from '../../src/shared/errors.ts';
import { buildOpenApi } from '../../src/http/openapi.ts';
import { loadRegistry } from '../../src/query/registry.ts';
import { loadSqlParser, type SqlParser } from '../../src/sql/sandbox/sql-parser.ts';
import { QUERIES_DIR } from '../../src/process/config.ts';

// The registry analyses sandboxed statements as it loads: the parser must be ready.
let parser: SqlParser;
before(async () => {
  parser = await loadSqlParser();
});
import { checkOpenApi31 } from '../support/openapi-check.ts';
import { SLOW_QUERIES_DIR } from '../support/slow-queries.ts';

const ALL: Principal = { mayCall: () => true, unscoped: true };
type Json = Record<string, any>;

test('the structural check itself catches broken documents', () => {
  const good = { openapi: '3.1.0', info: { title: 't', version: '1' }, paths: { '/a': { get: { responses: { '200': { description: 'ok' } } } } } };
  assert.deepEqual(checkOpenApi31(good), []);
  const broken = {
    openapi: '3.0.3',
    info: { title: 't' },
    security: [{ nope: [] }],
    paths: {
      a: { get: { operationId: 'x', parameters: [{ name: 'p', in: 'body', schema: {} }], responses: { '200': { $ref: '#/components/responses/Missing' } } } },
      '/b/{id}': { post: { operationId: 'x', responses: { '2000': { description: 'no' } } } },
      '/c': { get: { responses: {} } },
    },
  };
  const problems = checkOpenApi31(broken).join('\n');
  for (const expected of [/openapi: must be 3\.1/, /info: title and version/, /unknown security scheme nope/, /paths start with/, /parameter needs name and in/, /unresolvable \$ref/, /duplicate operationId x/, /bad response key 2000/, /templated \{id\} has no path parameter/, /responses must be a non-empty object/]) {
    assert.match(problems, expected);
  }
});

test('every stored query appears, with its parameters, row schema, errors and security', () => {
  const registry = loadRegistry(QUERIES_DIR, parser);
  const doc = buildOpenApi(registry, '1.2.3').document(ALL) as Json;
  assert.deepEqual(checkOpenApi31(doc), []);
  assert.equal(doc.openapi, '3.1.0');
  assert.equal(doc.info.version, '1.2.3');

  assert.deepEqual(doc.components.securitySchemes.apiKey, { type: 'apiKey', in: 'header', name: 'X-API-KEY', description: 'Access token.' });
  assert.equal(doc.components.securitySchemes.bearer.type, 'http');
  assert.equal(doc.components.securitySchemes.bearer.scheme, 'bearer');
  assert.deepEqual(doc.security, [{ apiKey: [] }, { bearer: [] }]);
  const envelope = doc.components.schemas.Error;
  assert.deepEqual(envelope.required, ['error']);
  assert.deepEqual(envelope.properties.error.required, ['code', 'message']);
  assert.deepEqual(envelope.properties.error.properties.code.enum, Object.keys(ERRORS));

  for (const q of registry.all) {
    const item = doc.paths[`/api/endpoints/query/${q.name}`];
    assert.ok(item?.get && item.post, `${q.name} has GET and POST`);
    const params = (item.get.parameters as Json[]).filter((p) => p.in === 'query');
    assert.deepEqual(params.map((p) => [p.name, p.required]), q.paramOrder.map((n) => [n, q.params[n]!.required]), q.name);
    assert.ok((item.get.parameters as Json[]).some((p) => p.$ref === '#/components/parameters/Sql'), 'sandboxed queries take sql');
    const rows = item.get.responses['200'].content['application/json'].schema.properties.result;
    assert.equal(rows.maxItems, q.maxRows);
    assert.deepEqual(Object.keys(rows.items.properties), Object.keys(q.columns));
    for (const status of ['400', '401', '403', '404', '503', '504']) assert.equal(item.get.responses[status].$ref, `#/components/responses/Error${status}`);
  }

  const logs = doc.paths['/api/endpoints/query/logs.all'].get;
  const byName = Object.fromEntries((logs.parameters as Json[]).filter((p) => p.in === 'query').map((p) => [p.name, p]));
  assert.deepEqual(byName.project.schema, { type: 'string', maxLength: 4096, minLength: 1 });
  assert.deepEqual(byName.iso_timestamp_start.schema, { type: 'string', format: 'date-time', maxLength: 4096 });
  const logRow = logs.responses['200'].content['application/json'].schema.properties.result.items;
  assert.deepEqual(logRow.properties.timestamp.format, 'date-time');
  assert.deepEqual(logRow.properties.metadata, { type: 'object' });

  const usage = doc.paths['/api/endpoints/query/usage.api-counts'];
  const interval = (usage.get.parameters as Json[]).find((p) => p.name === 'interval')!;
  assert.deepEqual(interval, { name: 'interval', in: 'query', required: true, description: interval.description, schema: { type: 'string', enum: ['hourly', 'daily', 'minutely'] } });
  assert.deepEqual(usage.post.requestBody.content['application/json'].schema.required, ['interval', 'project']);
  const usageRow = usage.get.responses['200'].content['application/json'].schema.properties.result.items;
  assert.deepEqual(usageRow.properties.total_rest_requests, { type: 'integer' });
  assert.ok(doc.components.responses.Error503.headers['Retry-After']);
  assert.ok(doc.components.responses.Error401.headers['WWW-Authenticate']);
});

test('a scoped caller sees only its stored queries; a query without sandboxing takes no sql', () => {
  const registry = loadRegistry(QUERIES_DIR, parser);
  const logs = registry.lookup('logs.all')!;
  const doc = buildOpenApi(registry, '1').document({ mayCall: (q) => q === logs, unscoped: false }) as Json;
  assert.deepEqual(Object.keys(doc.paths).filter((p) => p.startsWith('/api/endpoints/query/')), ['/api/endpoints/query/logs.all']);
  assert.deepEqual(checkOpenApi31(doc), []);

  const slow = buildOpenApi(loadRegistry(SLOW_QUERIES_DIR, parser), '1').document(ALL) as Json;
  assert.deepEqual(checkOpenApi31(slow), []);
  const params = slow.paths['/api/endpoints/query/test.slow'].get.parameters as Json[];
  assert.ok(!params.some((p) => p.$ref === '#/components/parameters/Sql'));
});
