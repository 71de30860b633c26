/**
 * How the generic-secret rule tells a literal secret from code that names one, measured:
 *
 *   npm run bench:generic-secret
 *
 * On the labelled cases of test/fixtures/generic-secret-cases.ts, for every value that passes the
 * rule's other gates (not a reference, 16+ literal characters, entropy 3.5+), each candidate "reads
 * as words" filter decides; a value the filter calls words is dropped. Printed per filter: recall
 * (secrets kept), precision (kept values that are secrets), and which values it got wrong.
 * Candidates: BPE token efficiency (Betterleaks' idea: characters per cl100k_base token) at several
 * thresholds, on the value as written and lowercased, with and without the exception for passwords
 * people type; and word segmentation against a word list (`word-list`, 274,000 English words): the
 * share of characters inside dictionary words of 3+ letters, by the best segmentation of each letter
 * run. The rule ships the one chosen in docs/ARCHITECTURE.md ("The generic rule's precision").
 */
import { readFileSync } from 'node:fs';
import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import { literalPart, readsAsWords } from '../src/scanner/rules/generic-secret.js';
import { CASES } from '../test/fixtures/generic-secret-cases.js';

const encoding = new Tiktoken(cl100k);
const efficiency = (v: string) => v.length / encoding.encode(v).length;

// The package's default export is the path of its words.txt.
const wordsFile = (await import('word-list')).default as string;
const DICTIONARY = new Set(
  readFileSync(wordsFile, 'utf8')
    .split('\n')
    .filter((w) => w.length >= 3),
);

/** Share of the value's characters inside dictionary words: the best segmentation of each letter run. */
function wordCoverage(value: string): number {
  const runs = value.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+/g) ?? [];
  let covered = 0;
  for (const run of runs) {
    const s = run.toLowerCase();
    const best = new Array<number>(s.length + 1).fill(0);
    for (let i = 1; i <= s.length; i++) {
      best[i] = best[i - 1]!;
      for (let j = Math.max(0, i - 24); j <= i - 3; j++) {
        if (DICTIONARY.has(s.slice(j, i))) best[i] = Math.max(best[i]!, best[j]! + (i - j));
      }
    }
    covered += best[s.length]!;
  }
  return covered / value.length;
}

/** The rule's exception for passwords people type (generic-secret.ts): a symbol after a character, or leetspeak. */
const looksTyped = (v: string) =>
  !/[/\\]/.test(v) &&
  (/[A-Za-z0-9][!@#%^&*+?~]/.test(v) || (v.match(/[a-z][0-9]{1,2}(?=[a-z])/gi)?.length ?? 0) >= 2);

const filters: [string, (literal: string) => boolean][] = [['none (entropy only)', () => false]];
for (const t of [2.5, 3, 3.5, 4]) filters.push([`BPE >= ${t}`, (v) => efficiency(v) >= t]);
for (const t of [2.8, 3, 3.2]) {
  filters.push([
    `BPE lowercased >= ${t}, unless typed`,
    (v) => !looksTyped(v) && efficiency(v.toLowerCase()) >= t,
  ]);
}
for (const t of [0.5, 0.6, 0.7, 0.8]) filters.push([`word coverage >= ${t}`, (v) => wordCoverage(v) >= t]);
for (const t of [0.5, 0.6]) {
  filters.push([`word coverage >= ${t}, unless typed`, (v) => !looksTyped(v) && wordCoverage(v) >= t]);
}
filters.push(['the rule as shipped (readsAsWords)', readsAsWords]);

const judged = CASES.flatMap((c) => {
  const literal = literalPart(c.value);
  return literal === null ? [] : [{ ...c, literal }];
});
console.log(
  `${CASES.length} cases; ${judged.length} pass the other gates ` +
    `(${judged.filter((c) => c.secret).length} secrets, ${judged.filter((c) => !c.secret).length} code naming one)\n`,
);
console.log('| words filter | recall | precision | code kept (false positives) | secrets dropped |');
console.log('|---|---|---|---|---|');
const details: string[] = [];
for (const [name, words] of filters) {
  const started = performance.now();
  let tp = 0;
  let fp = 0;
  const kept: string[] = [];
  const dropped: string[] = [];
  for (const c of judged) {
    const keep = !words(c.literal);
    if (keep && c.secret) tp++;
    else if (keep) {
      fp++;
      kept.push(c.value);
    } else if (c.secret) dropped.push(c.value);
  }
  const ms = performance.now() - started;
  const secrets = judged.filter((c) => c.secret).length;
  console.log(
    `| ${name} | ${((100 * tp) / secrets).toFixed(1)} % | ${((100 * tp) / (tp + fp)).toFixed(1)} % | ${fp} | ${dropped.length} |`,
  );
  details.push(
    `${name} (${ms.toFixed(1)} ms):\n  kept: ${JSON.stringify(kept)}\n  dropped: ${JSON.stringify(dropped)}`,
  );
}
console.log(`\n${details.join('\n')}`);
