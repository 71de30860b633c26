import { createHash, randomBytes } from 'node:crypto';

/** Every API key begins with this. */
export const API_KEY_PREFIX = 'svc_';
/** Random characters after the prefix: 40 base62 characters are about 238 bits. */
export const API_KEY_RANDOM_LENGTH = 40;
/** Random characters a key must carry at least to be worth a lookup. */
export const API_KEY_MIN_RANDOM_LENGTH = 32;
/** Characters of a key kept in clear to name it in the dashboard: `svc_` + 8. */
export const API_KEY_DISPLAY_PREFIX_LENGTH = API_KEY_PREFIX.length + 8;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** The largest multiple of 62 that fits in a byte: bytes at or above it are dropped (no modulo bias). */
const UNBIASED_LIMIT = 256 - (256 % BASE62.length); // 248
const API_KEY_PATTERN = new RegExp(`^${API_KEY_PREFIX}[0-9A-Za-z]{${API_KEY_MIN_RANDOM_LENGTH},}$`);

export interface GeneratedApiKey {
  /** The whole key: shown to its owner once, never stored. */
  key: string;
  /** `svc_` + 8 characters, stored in clear so the owner can tell keys apart. */
  prefix: string;
  /** What is stored and looked up: see {@link hashApiKey}. */
  hash: string;
}

/** A new API key: `svc_` + 40 base62 characters from the system CSPRNG. */
export function generateApiKey(): GeneratedApiKey {
  const key = API_KEY_PREFIX + randomBase62(API_KEY_RANDOM_LENGTH);
  return { key, prefix: key.slice(0, API_KEY_DISPLAY_PREFIX_LENGTH), hash: hashApiKey(key) };
}

/**
 * The stored form of a key: SHA-256, hex. A fast unsalted hash is right here, unlike for passwords:
 * the keys carry about 238 random bits, so neither a dictionary nor brute force can invert the hash,
 * and a deterministic hash lets a request find its key with one indexed lookup.
 */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Whether a string has the shape of an API key (`svc_` + at least 32 base62 characters). */
export function looksLikeApiKey(s: string): boolean {
  return API_KEY_PATTERN.test(s);
}

/**
 * The credential of an `Authorization: Bearer <credential>` header (scheme case-insensitive, white
 * space trimmed), or null when the header is missing, uses another scheme or carries no credential.
 */
export function bearerToken(authorizationHeader: string | undefined): string | null {
  if (authorizationHeader === undefined) return null;
  const match = /^Bearer[ \t]+(\S+)$/i.exec(authorizationHeader.trim());
  return match?.[1] ?? null;
}

/** `length` base62 characters by rejection sampling: each byte ≥ 248 is dropped, so 62 divides evenly. */
function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    // 256/248 bytes per character on average; ask for a little more than needed to rarely loop.
    const bytes = randomBytes(Math.ceil((length - out.length) * 1.1) + 4);
    for (const byte of bytes) {
      if (byte >= UNBIASED_LIMIT) continue;
      out += BASE62[byte % BASE62.length];
      if (out.length === length) break;
    }
  }
  return out;
}
