// TEMPORARY STUB (lead) — helper-5 replaces this file.
import { HttpError } from './errors.ts';
export async function initSandbox(): Promise<void> {}
export function composeSandboxed(_stored: string, _caller: string): string { throw new HttpError('invalid_sql', 'not yet'); }
