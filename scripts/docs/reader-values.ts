/**
 * The values a reader fills in where the pages write a placeholder, and what the documentation
 * run puts there: the database host `db:5432` (the run's throwaway PostgreSQL), its superuser
 * `admin`, passwords written `…`, and `TOKEN=…` (the token the running service printed).
 */
export const PASSWORD = 'docs-test-password';

export interface ReaderValues {
  pgPort: number;
  /** The access token the running service printed, when it generated one. */
  printedToken: string | null;
}

/** The values a reader fills in, as the pages write them, and what the run puts there. */
export function substitute(text: string, ctx: ReaderValues): string {
  return text
    .replace(/postgres:\/\/admin@db:5432\//g, `postgres://postgres@127.0.0.1:${ctx.pgPort}/`)
    .replace(/@db:5432\//g, `@127.0.0.1:${ctx.pgPort}/`)
    .replace(/:…@/g, `:${PASSWORD}@`)
    .replace(/password '…'/g, `password '${PASSWORD}'`)
    .replace(/\bTOKEN=…/g, () => {
      if (ctx.printedToken === null) throw new Error('TOKEN=… but the running service printed no token');
      return `TOKEN=${ctx.printedToken}`;
    });
}

