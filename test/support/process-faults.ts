/**
 * Records unhandled rejections and uncaught exceptions in this test process, so a test can assert
 * that none happened while it ran (a promise rejected with nobody listening is a crash in production).
 */
export interface ProcessFaults {
  readonly seen: readonly string[];
  stop(): void;
}

export function watchProcessFaults(): ProcessFaults {
  const seen: string[] = [];
  const describe = (kind: string) => (err: unknown) => {
    seen.push(`${kind}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  };
  const onRejection = describe('unhandledRejection');
  const onException = describe('uncaughtException');
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  return {
    seen,
    stop() {
      process.off('unhandledRejection', onRejection);
      process.off('uncaughtException', onException);
    },
  };
}
