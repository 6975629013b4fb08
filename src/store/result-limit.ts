/** The result byte limit (MAX_RESULT_BYTES), as both engines enforce it while a result arrives. */

/** The default result byte limit of both engines (config MAX_RESULT_BYTES). */
export const DEFAULT_MAX_RESULT_BYTES = 16 * 1024 * 1024;

/** The error both engines raise past the result byte limit; db-errors.ts maps its code. */
export function resultTooLarge(limit: number): Error {
  return Object.assign(new Error(`the result is larger than ${limit} bytes`), { code: RESULT_TOO_LARGE });
}
export const RESULT_TOO_LARGE = 'RESULT_TOO_LARGE';
