/**
 * Child process of test/pg-gc.test.ts: runs `logs.all` uncached through the pg engine, one call at
 * a time, for DURATION_MS, as a service would at concurrency 1, and drops each answer once it has
 * been encoded (after CONCURRENT_MS of 32 calls at a time, when set). Run under `node
 * --trace-gc-nvp`, which prints each scavenge's promoted bytes.
 */
import { createPgEngine } from '../../src/store/postgres/pg-engine.ts';
import { encodeResult } from '../../src/query/encode-result.ts';
import { QUERIES_DIR } from '../../src/process/config.ts';
import { POSTGRESQL } from '../../src/sql/dialect.ts';
import { loadRegistry } from '../../src/query/registry.ts';
import { bindStatement } from '../../src/query/run-query.ts';
import { loadSqlParser } from '../../src/sql/sandbox/sql-parser.ts';
import { SCHEMA } from './engines.ts';

const engine = createPgEngine({ connectionString: process.env.DATABASE_URL!, schema: SCHEMA, statementTimeoutMs: 10_000, poolMax: 2, connectTimeoutMs: 2_000 });
const logsAll = loadRegistry(QUERIES_DIR, await loadSqlParser()).lookup('logs.all')!;
const { sql, params } = bindStatement(logsAll, new Map([['project', [process.env.PROJECT!]]]), null, POSTGRESQL);
// 32 calls at a time first (as the bench's c=32 row): answers then outlive scavenges, which is
// what led V8 to pretenure part of them (test/pg-gc.test.ts).
const concurrentUntil = performance.now() + Number(process.env.CONCURRENT_MS ?? 0);
await Promise.all(
  Array.from({ length: 32 }, async () => {
    while (performance.now() < concurrentUntil) encodeResult(await engine.query(sql, params, { stored: true }));
  }),
);
let calls = 0;
let bytes = 0;
const until = performance.now() + Number(process.env.DURATION_MS);
while (performance.now() < until) {
  bytes += encodeResult(await engine.query(sql, params, { stored: true })).length;
  calls++;
}
await engine.close();
// The parent reads this line after the GC trace.
console.log(`LOOP calls=${calls} bytes_per_call=${Math.round(bytes / calls)}`);
