import type { Finding } from './types.js';

/**
 * The full secret of each finding, held only in this process's memory. A WeakMap keeps the value off
 * the Finding object itself, so no serializer, logger or report can reach it by walking the object;
 * only code that asks for it by name (credential checks) gets it.
 */
const secrets = new WeakMap<Finding, string>();

export function attachSecret(finding: Finding, secret: string): void {
  secrets.set(finding, secret);
}

export function secretOf(finding: Finding): string | undefined {
  return secrets.get(finding);
}
