import { describe, expect, it } from 'vitest';
import { unavailabilityReason } from './unavailable.js';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('unavailabilityReason: is the database away, or was the query wrong?', () => {
  it.each([
    [withCode('ECONNREFUSED'), 'ECONNREFUSED'],
    [withCode('ECONNRESET'), 'ECONNRESET'],
    [withCode('ETIMEDOUT'), 'ETIMEDOUT'],
    [withCode('57P01', 'terminating connection due to administrator command'), '57P01'],
    [withCode('57P03', 'the database system is shutting down'), '57P03'],
    [withCode('53300', 'sorry, too many clients already'), '53300'],
    [withCode('08006'), '08006'],
    [withCode('SQLITE_BUSY', 'database is locked'), 'SQLITE_BUSY'],
    [withCode('SQLITE_BUSY_SNAPSHOT'), 'SQLITE_BUSY_SNAPSHOT'],
    [withCode('SQLITE_LOCKED'), 'SQLITE_LOCKED'],
    [new Error('Connection terminated unexpectedly'), 'connection lost'],
    [new Error('timeout exceeded when trying to connect'), 'connection lost'],
    [new AggregateError([new Error('x'), withCode('ECONNREFUSED')]), 'ECONNREFUSED'],
  ])('%s is unavailability (%s)', (error, reason) => {
    expect(unavailabilityReason(error)).toBe(reason);
  });

  it.each([
    [withCode('23505', 'duplicate key value violates unique constraint')],
    [withCode('42P01', 'relation "users" does not exist')],
    [withCode('SQLITE_CONSTRAINT_UNIQUE')],
    [withCode('SQLITE_ERROR', 'no such table: users')],
    [new Error('something else')],
    ['ECONNREFUSED'],
    [null],
  ])('%s is not', (error) => {
    expect(unavailabilityReason(error)).toBeNull();
  });
});
