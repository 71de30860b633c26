/** These words mark a documentation placeholder, in any letter case, for every rule. */
const PLACEHOLDER_WORDS = /example|placeholder|dummy|changeme|redacted/i;

export function isPlaceholder(value: string): boolean {
  return PLACEHOLDER_WORDS.test(value);
}
