import type { ContentfulStatusCode } from 'hono/utils/http-status';

/**
 * The service's HTTP errors: a status and a message safe to show (never a key, a token or a secret).
 * Routes throw these; app.ts turns every one into the envelope `{"error": "<message>"}` (spec 7.1).
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

export const badRequest = (message: string) => new HttpError(400, message);
export const unauthorized = (message: string) => new HttpError(401, message);
export const paymentRequired = (message: string) => new HttpError(402, message);
export const tooManyRequests = (message: string, retryAfterSeconds: number) =>
  new HttpError(429, message, { 'Retry-After': String(retryAfterSeconds) });
export const unavailable = (message: string) => new HttpError(503, message);
