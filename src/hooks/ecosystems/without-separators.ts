/**
 * A name without its separators (`-`, `_`, `.`): `cross-env` and `crossenv` meet here. The typosquat
 * rule compares names in this form, and so do the look-alike rules of the ecosystems.
 */
export function withoutSeparators(key: string): string {
  return key.replace(/[-_.]/g, '');
}
