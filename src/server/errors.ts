import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { DomainError, type DomainErrorCode } from '../services/errors.js';
import { DatabaseUnavailableError } from '../storage/index.js';

/**
 * An error that exists only in HTTP (a rate limit, an unknown route): a status and a message safe
 * to show. The product's own errors are DomainErrors, mapped below.
 */
export class HttpError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export const tooManyRequests = (message: string, retryAfterSeconds: number) =>
  new HttpError(429, message, { 'Retry-After': String(retryAfterSeconds) });

/** The one map from the product's errors to HTTP statuses. */
const STATUS: Record<DomainErrorCode, ContentfulStatusCode> = {
  'invalid-input': 400,
  unauthenticated: 401,
  'plan-required': 402,
  forbidden: 403,
  'not-found': 404,
  conflict: 409,
  'quota-exhausted': 429,
  unavailable: 503,
};

/** What a client is told to wait while the database is away: a restart takes a few seconds. */
const DATABASE_RETRY_AFTER_S = 5;

/**
 * The HTTP answer for an error the service knows (body `{"error": message}`), or null for one it
 * does not (a bug: the caller logs it and answers 500).
 */
export function httpErrorOf(err: unknown): HttpError | null {
  if (err instanceof HttpError) return err;
  if (err instanceof DomainError) {
    const headers: Record<string, string> =
      err.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(err.retryAfterSeconds) };
    return new HttpError(STATUS[err.code], err.message, headers);
  }
  if (err instanceof DatabaseUnavailableError) {
    return new HttpError(503, err.message, { 'Retry-After': String(DATABASE_RETRY_AFTER_S) });
  }
  return null;
}
