// biome-ignore-all lint/suspicious/noTemplateCurlyInString: values are data: template syntax is what they test
import { describe, expect, it } from 'vitest';
import { CASES } from '../../../test/fixtures/generic-secret-cases.js';
import { shannonEntropy } from './entropy.js';
import { isLiteralSecret, literalPart, MIN_ENTROPY, readsAsWords } from './generic-secret.js';

/**
 * The rule's reading of a captured value (contract section 1, 2026-11-26), on the labelled cases of
 * test/fixtures/generic-secret-cases.ts. The figures (precision, recall, the alternatives measured)
 * are `npx tsx bench/generic-secret-filters.ts`'s.
 */
describe('generic-secret: a literal secret, not code that names one', () => {
  const secrets = CASES.filter((c) => c.secret && c.knownMiss === undefined);
  const named = CASES.filter((c) => !c.secret);

  it.each(
    secrets.map((c) => [c.from, c.value]),
  )('keeps %s %j whenever the entropy gate does (nothing random is dropped for reading as words)', (_from, value) => {
    // Short hex strings may fall under the spec's 3.5 bits: that gate is the spec's, not this one.
    const passesEntropy = shannonEntropy(value.replace(/^\$\{PREFIX\}|^#\{env\}/, '')) >= MIN_ENTROPY;
    expect(isLiteralSecret(value)).toBe(passesEntropy);
  });

  it.each(named.map((c) => [c.from, c.value]))('skips %s %j', (_from, value) => {
    expect(isLiteralSecret(value)).toBe(false);
  });

  it('misses only the cases it says it misses, for the reason it gives', () => {
    const missed = CASES.filter((c) => c.knownMiss !== undefined);
    expect(missed.map((c) => [c.value, isLiteralSecret(c.value), readsAsWords(c.value)])).toEqual([
      ['thisISverySECRET123', false, true],
      ['ThisIsASECRET123', false, true],
    ]);
  });

  it('judges the literal part of a value beside its template expressions', () => {
    expect(literalPart('${PREFIX}a8F3kQ9zL2mW7xR4')).toBe('a8F3kQ9zL2mW7xR4');
    expect(literalPart('#{password_attribute}_digest')).toBeNull();
    expect(literalPart('${{ secrets.X }}abc')).toBeNull();
    expect(literalPart('{{ .Values.token }}')).toBeNull();
    expect(literalPart('process.env.API_TOKEN_VALUE')).toBeNull();
    // `$NAME` inside a literal is no interpolation in many quotes: the value is judged whole.
    expect(literalPart('$tr0ng_Pas$word?')).toBe('$tr0ng_Pas$word?');
    expect(isLiteralSecret('$tr0ng_Pas$word?')).toBe(true);
  });

  it('reads a megabyte-long value in bounded time (the words test reads a prefix)', () => {
    const long = 'getTokenByRangeStart'.repeat(50_000);
    const started = performance.now();
    expect(readsAsWords(long)).toBe(true);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
