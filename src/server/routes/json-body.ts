import type { Context } from 'hono';
import { invalidInput } from '../../services/errors.js';

/** The request's JSON object body; invalid-input for anything else (not JSON, not an object). */
export async function jsonBody(c: Context): Promise<Record<string, unknown>> {
  let body: unknown;
  try {
    body = await c.req.json();
  } catch {
    throw invalidInput('the body must be a JSON object');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidInput('the body must be a JSON object');
  }
  return body as Record<string, unknown>;
}
