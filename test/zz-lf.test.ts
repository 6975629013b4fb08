import { logflareBehaviour } from './behaviour/logflare.ts';
import { pgliteFactory, pgFactory } from './support/engines.ts';
logflareBehaviour(process.env.ENG === 'pg' ? pgFactory : pgliteFactory);
