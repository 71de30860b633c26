import { RULES } from '../rules/index.js';
import type { Rule, SecretMatch } from '../rules/rule.js';
import { maskSecret } from './mask.js';
import { isPlaceholder } from './placeholder.js';
import { PREFILTER, prefilterKeywords } from './prefilter.js';

interface Compiled {
  rule: Rule;
  /** A private copy with `d` (match indices): the secret's offsets, and no `lastIndex` shared with callers. */
  re: RegExp;
}

const withFlags = (flags: string, add: string): string => [...new Set(flags + add)].join('');

const COMPILED: readonly Compiled[] = RULES.map((rule) => ({
  rule,
  re: new RegExp(rule.pattern.source, withFlags(rule.pattern.flags, 'gd')),
}));

/**
 * Which rules each prefilter keyword can lead to. A rule can only match a line holding one of its
 * keywords, and each of those keywords contains a prefilter keyword, so running just the rules
 * reached from the keywords found in the line gives the same result as running all of them,
 * at a fraction of the cost (most candidate lines hold one keyword, and so wake one rule).
 */
const RULES_BY_KEYWORD = new Map<string, Compiled[]>();
for (const keyword of prefilterKeywords()) {
  RULES_BY_KEYWORD.set(
    keyword,
    COMPILED.filter(({ rule }) => rule.keywords.some((k) => k.toLowerCase().includes(keyword))),
  );
}

const KEYWORDS = new RegExp(PREFILTER.source, 'gi');

/** The rules worth running on a line: those reached from the prefilter keywords it contains. */
function candidateRules(line: string): Set<Compiled> {
  const rules = new Set<Compiled>();
  const re = KEYWORDS;
  re.lastIndex = 0;
  for (let m = re.exec(line); m !== null; m = re.exec(line)) {
    for (const compiled of RULES_BY_KEYWORD.get(m[0].toLowerCase()) ?? COMPILED) rules.add(compiled);
    if (rules.size === COMPILED.length) break;
    re.lastIndex = m.index + 1; // keywords may overlap: look again from the next character
  }
  return rules;
}

/** The ids of the rules a line wakes: what keeps the hot loop to one rule on most lines (tested). */
export function rulesWokenBy(line: string): string[] {
  return [...candidateRules(line)].map(({ rule }) => rule.id);
}

function matchesOf({ rule, re }: Compiled, line: string): SecretMatch[] {
  const out: SecretMatch[] = [];
  re.lastIndex = 0;
  for (let m = re.exec(line); m !== null; m = re.exec(line)) {
    if (m[0].length === 0) re.lastIndex++; // never spin on an empty match
    const secret = m.groups?.secret;
    const span = m.indices?.groups?.secret;
    if (secret === undefined || span === undefined) continue;
    if (isPlaceholder(secret) || (rule.accept && !rule.accept(secret))) continue;
    const maskedValue = rule.mask ? rule.mask(secret, m) : maskSecret(secret);
    out.push({ ruleId: rule.id, secret, maskedValue, start: span[0], end: span[1] });
  }
  return out;
}

/**
 * Every secret in one added line (no diff prefix, no line ending), ordered by offset. A line may hold
 * several secrets, of one rule or several; the caller keeps one finding per fingerprint.
 * `generic-secret` does not report a value a specific rule already reported on the line.
 */
export function detectSecrets(line: string): SecretMatch[] {
  const specific: SecretMatch[] = [];
  const generic: SecretMatch[] = [];
  for (const compiled of candidateRules(line)) {
    (compiled.rule.id === 'generic-secret' ? generic : specific).push(...matchesOf(compiled, line));
  }
  const kept = generic.filter((g) => !specific.some((s) => s.start < g.end && g.start < s.end));
  return [...specific, ...kept].sort((a, b) => a.start - b.start);
}
