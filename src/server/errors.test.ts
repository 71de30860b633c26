import { describe, expect, it } from 'vitest';
import { DomainError, type DomainErrorCode, quotaExhausted } from '../services/errors.js';
import { DatabaseUnavailableError } from '../storage/index.js';
import { httpErrorOf } from './errors.js';

describe('the one map from the product errors to HTTP', () => {
  it.each([
    ['invalid-input', 400],
    ['unauthenticated', 401],
    ['plan-required', 402],
    ['forbidden', 403],
    ['not-found', 404],
    ['conflict', 409],
    ['quota-exhausted', 429],
    ['unavailable', 503],
  ] as [DomainErrorCode, number][])('%s is %i, with its message', (code, status) => {
    expect(httpErrorOf(new DomainError(code, 'why'))).toMatchObject({ status, message: 'why', headers: {} });
  });

  it('says when to retry a used-up allowance and a database that is away', () => {
    expect(httpErrorOf(quotaExhausted('used up', 42))?.headers).toEqual({ 'Retry-After': '42' });
    expect(httpErrorOf(new DatabaseUnavailableError('ECONNREFUSED'))).toMatchObject({
      status: 503,
      message: 'database unavailable',
      headers: { 'Retry-After': '5' },
    });
  });

  it('knows nothing of other errors (they are bugs: 500, logged)', () => {
    expect(httpErrorOf(new Error('boom'))).toBeNull();
    expect(httpErrorOf('boom')).toBeNull();
  });
});
