import type { VerificationResult } from '../scanner/index.js';

/**
 * Reasons are built only from this fixed vocabulary, status codes and error codes: never from a
 * response body or an exception message, either of which may echo the credential back.
 */
export const active = (): VerificationResult => ({ verification: 'active' });
export const revoked = (): VerificationResult => ({ verification: 'revoked' });
export const unchecked = (reason: string): VerificationResult => ({ verification: 'unchecked', reason });
