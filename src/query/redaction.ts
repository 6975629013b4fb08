/**
 * When an answer is redacted: the one place the redaction policy is decided. The stored query's
 * `redactPii` setting, or the request header `LF-ENDPOINT-REDACT-PII` switching it on; the header
 * can never switch a stored setting off. What is redacted is redact.ts.
 */
import { redactRows } from './redact.ts';

/** The request header that asks for redaction. */
export const REDACT_HEADER = 'lf-endpoint-redact-pii';

/**
 * Whether this call's answer is redacted. The header is on when any of its comma-separated values
 * is `true` (any case): a repeated header reaches node as "true, true" and must not turn it off.
 */
export function redactionApplies(storedSetting: boolean, header: string | string[] | undefined): boolean {
  if (storedSetting) return true;
  if (header === undefined) return false;
  const values = Array.isArray(header) ? header.join(',') : header;
  return values.split(',').some((v) => v.trim().toLowerCase() === 'true');
}

/** Apply the decision to rows about to be encoded. */
export function applyRedaction<T>(redact: boolean, rows: T[]): T[] {
  return redact ? redactRows(rows) : rows;
}
