/**
 * The behavioural suite (hono's runTest pattern): the real service on port 0 over one engine, the
 * same assertions on every engine. Each engine's entry file (test/pglite.test.ts, test/pg.test.ts, test/chdb.test.ts)
 * calls runBehaviour with its factory. An engine that cannot do something declares it in `skip`
 * with the reason; there are no inline engine checks in the suites.
 */
import { describe } from 'node:test';
import type { EngineFactory } from '../support/engines.ts';
import { fuzzBehaviour } from './fuzz.ts';
import { hostileBehaviour } from './hostile.ts';
import { httpBehaviour } from './http.ts';
import { logflareBehaviour } from './logflare.ts';
import { opsBehaviour } from './ops.ts';
import { usageRollupBehaviour } from './usage-rollup.ts';
import { storeCheckBehaviour } from './store-check.ts';
import { ingestBehaviour } from './ingest.ts';
import { queueingBehaviour } from './queueing.ts';
import { formatsBehaviour } from './formats.ts';
import { runawayBehaviour } from './runaway.ts';
import { studioAnalyticsBehaviour } from './studio-analytics.ts';
import { bigqueryConformanceBehaviour } from './bigquery-conformance.ts';

export interface BehaviourOptions {
  /** Suite name → why this engine cannot run it. */
  skip: Readonly<Partial<Record<SuiteName, string>>>;
}

const SUITES = { http: httpBehaviour, ops: opsBehaviour, fuzz: fuzzBehaviour, hostile: hostileBehaviour, logflare: logflareBehaviour, usageRollup: usageRollupBehaviour, storeCheck: storeCheckBehaviour, ingest: ingestBehaviour, queueing: queueingBehaviour, formats: formatsBehaviour, runaway: runawayBehaviour, studioAnalytics: studioAnalyticsBehaviour, bigqueryConformance: bigqueryConformanceBehaviour } as const;
export type SuiteName = keyof typeof SUITES;
export const SUITE_NAMES = Object.keys(SUITES) as SuiteName[];

/** Every suite skipped for one reason (the engine cannot run here at all), each shown with it. */
export function everySuite(reason: string): Readonly<Partial<Record<SuiteName, string>>> {
  return Object.fromEntries(SUITE_NAMES.map((name) => [name, reason]));
}

export function runBehaviour(factory: EngineFactory, options: BehaviourOptions): void {
  for (const [name, suite] of Object.entries(SUITES) as [SuiteName, (f: EngineFactory) => void][]) {
    const reason = options.skip[name];
    // A declared skip shows in the report with its reason; it is never silently dropped.
    if (reason !== undefined) describe(`${name} on ${factory.name}`, { skip: reason }, () => {});
    else suite(factory);
  }
}
