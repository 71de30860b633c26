// The error module itself, not the storage barrel: the CLI's error handling must not load the database drivers.
import { StoreError } from '../storage/errors.js';
import { DatabaseUnavailableError } from '../storage/unavailable.js';

/**
 * The product's errors, one catalogue for every entry point. A message is safe to show (never a key,
 * a token or a secret). Each entry point maps the code once: HTTP statuses in server/errors.ts,
 * exit codes in the CLI, tool errors in MCP.
 */
export type DomainErrorCode =
  /** The request is missing something or malformed. */
  | 'invalid-input'
  /** No credential, or one that is not accepted (a bad key, a bad identity token). */
  | 'unauthenticated'
  /** The caller's plan does not allow this (a private repository on the Free plan). */
  | 'plan-required'
  /** Authenticated, but not allowed to do this. */
  | 'forbidden'
  | 'not-found'
  /** It exists already. */
  | 'conflict'
  /** An allowance is used up (a month's CI runs, one account's sign-in attempts); retry after `retryAfterSeconds`. */
  | 'quota-exhausted'
  /** Something this needs is not there right now (the executable is not published). */
  | 'unavailable';

export class DomainError extends Error {
  constructor(
    readonly code: DomainErrorCode,
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const invalidInput = (message: string) => new DomainError('invalid-input', message);
export const unauthenticated = (message: string) => new DomainError('unauthenticated', message);
export const planRequired = (message: string) => new DomainError('plan-required', message);
export const forbidden = (message: string) => new DomainError('forbidden', message);
export const notFound = (message: string) => new DomainError('not-found', message);
export const quotaExhausted = (message: string, retryAfterSeconds: number) =>
  new DomainError('quota-exhausted', message, retryAfterSeconds);
export const unavailable = (message: string) => new DomainError('unavailable', message);

/** Runs a storage write, turning its rule violations (duplicate, not found) into domain errors. */
export async function storageRules<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (e) {
    if (e instanceof StoreError) {
      throw new DomainError(e.code === 'duplicate' ? 'conflict' : 'not-found', e.message);
    }
    throw e;
  }
}

/**
 * What of an unexpected error may go into a log line: its class name only. A message or a stack can
 * quote a request, a query or a secret.
 */
export function loggableName(error: unknown): string {
  return error instanceof Error ? error.name : 'unknown';
}

/**
 * Why the database cannot answer right now (a short fixed code for logs, such as ECONNREFUSED), when
 * that is what `error` says; null for every other error. Entry points that go on without the
 * database (the hooks allow, saying so) ask this instead of knowing storage's error classes.
 */
export function databaseOutageReason(error: unknown): string | null {
  return error instanceof DatabaseUnavailableError ? error.reason : null;
}
