/** `--name N` / `--name=N` integer options for the scripts; anything malformed stops with the usage. */
export function intArg(argv: readonly string[], name: string, fallback: number, usage: string): number {
  const raw = stringArg(argv, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) {
    console.error(`--${name} needs a non-negative integer, got "${raw}"\n${usage}`);
    process.exit(2);
  }
  return Number(raw);
}

export function stringArg(argv: readonly string[], name: string): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === `--${name}`) return argv[i + 1];
    if (arg.startsWith(`--${name}=`)) return arg.slice(name.length + 3);
  }
  return undefined;
}
