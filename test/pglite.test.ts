/** The behavioural suite on the embedded engine (PGlite). Nothing skipped. */
import { runBehaviour } from './behaviour/run-behaviour.ts';
import { pgliteFactory } from './support/engines.ts';

runBehaviour(pgliteFactory, { skip: {} });
