/** The behavioural suite on a throwaway real PostgreSQL 15 server. Nothing skipped. */
import { runBehaviour } from './behaviour/run-behaviour.ts';
import { pgFactory } from './support/engines.ts';

runBehaviour(pgFactory, { skip: {} });
