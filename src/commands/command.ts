/**
 * What the subcommands of `node dist/main.js` share (main.ts dispatches): their environment, the
 * error that prints its message and exits 1 without a stack, and a connection URL made safe to print.
 */
export type Env = Readonly<Record<string, string | undefined>>;

/** A mistake in how the command was called or configured: printed as `<command>: <message>`. */
export class CommandError extends Error {
  override name = 'CommandError';
}

/** host:port/database of a connection URL: never the user's password. */
export function describeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}${u.port ? `:${u.port}` : ''}${u.pathname}`;
  } catch {
    return '(unparseable DATABASE_URL)';
  }
}
