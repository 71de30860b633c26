import { RULES } from '../rules/index.js';

const escapeLiteral = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Every rule's keywords, deduplicated, dropping any keyword that contains another one (the shorter
 * already hits wherever the longer would).
 */
export function prefilterKeywords(rules = RULES): string[] {
  const all = [...new Set(rules.flatMap((r) => r.keywords.map((k) => k.toLowerCase())))];
  return all.filter((k) => !all.some((other) => other !== k && k.includes(other))).sort();
}

/** A global, case-insensitive alternation of literal keywords. */
export function keywordPattern(keywords: readonly string[]): RegExp {
  return new RegExp(keywords.map(escapeLiteral).join('|'), 'gi');
}

/**
 * One case-insensitive alternation of literal keywords: every line a rule can match contains a hit.
 * Global, so the hot loop can walk a whole chunk with `exec`; callers own `lastIndex`. The blob gate
 * finds the same keywords with keyword-finder.ts.
 */
export const PREFILTER: RegExp = keywordPattern(prefilterKeywords());

const ANY = new RegExp(PREFILTER.source, 'i');

/** Whether any rule could match this line; stateless (a private non-global copy of PREFILTER). */
export function mayContainSecret(line: string): boolean {
  return ANY.test(line);
}
