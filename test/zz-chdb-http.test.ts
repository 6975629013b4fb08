import { runBehaviour, SUITE_NAMES } from './behaviour/run-behaviour.ts';
import { chdbFactory } from './support/engines.ts';
runBehaviour(chdbFactory, { skip: Object.fromEntries(SUITE_NAMES.filter((n) => !['logflare'].includes(n)).map((n) => [n, 'x'])) });
