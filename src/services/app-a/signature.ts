import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Whether `header` (`X-Hub-Signature-256: sha256=<hex>`) is the HMAC-SHA256 of the raw body under the
 * webhook secret. Compared in constant time over equal lengths (a digest's length is public), so the
 * time taken tells an attacker nothing about how much of a forged signature was right.
 */
export function validSignature(secret: string, body: Buffer, header: string | undefined): boolean {
  if (header === undefined || !header.startsWith('sha256=')) return false;
  const given = Buffer.from(header.slice('sha256='.length), 'hex');
  const expected = createHmac('sha256', secret).update(body).digest();
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The header value a body signed with `secret` carries (for tests and tools that send deliveries). */
export function signatureOf(secret: string, body: Buffer | string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}
