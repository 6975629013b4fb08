/** The bench's command line: which parts to run, how much data, how long each run lasts. */

export const USAGE =
  'usage: npm run bench -- [--quick] [--rows N] [--runs R] [--seconds S] [--warmup S] [--only logs,cached,refresh,studio,growth,ingest] [--explain] [--profile]\n' +
  '       npm run bench -- --engine clickhouse [--rows N[,N…]] [--runs R]   (chdb beside PostgreSQL on the same rows, at each --rows stage)\n' +
  '  --quick: the hot paths only (logs.all and cached usage.api-counts at 100k rows, 3 runs of 2 s), under 3 minutes; later options override it';
export const PARTS = ['logs', 'cached', 'refresh', 'studio', 'growth', 'ingest'] as const;
export type Part = (typeof PARTS)[number];

export interface Args {
  /** `clickhouse`: the ClickHouse comparison (clickhouse.ts) instead of the service against its floors. */
  engine: 'postgresql' | 'clickhouse';
  /** Edge-row stages (`--rows 1000000,10000000`); `rows` is the last. */
  stages: number[];
  rows: number;
  runs: number;
  seconds: number;
  warmup: number;
  only: Set<Part>;
  explain: boolean;
  profile: boolean;
}

export function parseArgs(argv: string[]): Args {
  const args: Args = { engine: 'postgresql', stages: [1_000_000], rows: 1_000_000, runs: 5, seconds: 3, warmup: 2, only: new Set(PARTS), explain: false, profile: false };
  for (let i = 0; i < argv.length; i++) {
    const [name, inline] = (argv[i] ?? '').split(/=(.*)/s, 2) as [string, string | undefined];
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new Error(`${name} needs a value\n${USAGE}`);
      return v;
    };
    const number = (min: number) => {
      const v = value();
      const n = Number(v);
      if (!Number.isFinite(n) || n < min) throw new Error(`${name} needs a number ≥ ${min}, got "${v}"\n${USAGE}`);
      return n;
    };
    switch (name) {
      case '--quick':
        Object.assign(args, { rows: 100_000, stages: [100_000], runs: 3, seconds: 2, warmup: 1, only: new Set<Part>(['logs', 'cached']) });
        break;
      case '--rows': {
        const list = value().split(',').map((v) => Math.floor(Number(v)));
        if (list.some((n) => !Number.isFinite(n) || n < 1) || list.some((n, i) => i > 0 && n <= list[i - 1]!)) throw new Error(`--rows needs increasing numbers ≥ 1\n${USAGE}`);
        args.stages = list;
        args.rows = list[list.length - 1]!;
        break;
      }
      case '--engine': {
        const engine = value();
        if (engine !== 'postgresql' && engine !== 'clickhouse') throw new Error(`--engine is postgresql or clickhouse, got "${engine}"\n${USAGE}`);
        args.engine = engine;
        break;
      }
      case '--runs':
        args.runs = Math.floor(number(1));
        break;
      case '--seconds':
        args.seconds = number(0.1);
        break;
      case '--warmup':
        args.warmup = number(0);
        break;
      case '--only': {
        const parts = value().split(',').map((p) => p.trim());
        for (const p of parts) if (!(PARTS as readonly string[]).includes(p)) throw new Error(`--only: unknown part "${p}"\n${USAGE}`);
        args.only = new Set(parts as Part[]);
        break;
      }
      case '--explain':
        args.explain = true;
        break;
      case '--profile':
        args.profile = true;
        break;
      case '-h':
      case '--help':
        console.log(USAGE);
        process.exit(0);
        break;
      default:
        throw new Error(`unknown argument "${argv[i]}"\n${USAGE}`);
    }
  }
  return args;
}

