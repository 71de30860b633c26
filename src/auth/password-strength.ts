import type { ZxcvbnFactory } from '@zxcvbn-ts/core';

/**
 * Why a password of acceptable length is still refused (contract 6: "not among well-known leaked or
 * trivial passwords"), or null:
 * - `leaked`: the whole password is one of the 49,000 most common passwords of real breaches
 *   (zxcvbn-ts's common dictionary; case, l33t spelling and reversal do not hide it);
 * - `guessable`: zxcvbn estimates it falls to fewer than 10^8 guesses (its score under 3): a leaked
 *   password with digits added (`password1234`), a repeat (`aaaaaaaaaaaa`), a sequence
 *   (`abcdefghijkl`), a keyboard walk (`qwertyuiopas`), a date.
 */
export type PasswordWeakness = 'leaked' | 'guessable' | null;

/** zxcvbn-ts's own recommendation: score 3 ("safely unguessable") or better. */
const MIN_SCORE = 3;

let checker: Promise<ZxcvbnFactory> | undefined;

/**
 * Loaded on the first password set, not at start-up: the dictionaries are about 2 MB and 80 ms to
 * unpack, which `svc admin` and the other commands never need.
 */
function loadChecker(): Promise<ZxcvbnFactory> {
  checker ??= (async () => {
    const [{ ZxcvbnFactory: Factory }, common] = await Promise.all([
      import('@zxcvbn-ts/core'),
      import('@zxcvbn-ts/language-common'),
    ]);
    return new Factory({ dictionary: { ...common.dictionary }, graphs: common.adjacencyGraphs });
  })();
  return checker;
}

export async function passwordWeakness(password: string): Promise<PasswordWeakness> {
  const result = (await loadChecker()).check(password);
  const [only] = result.sequence;
  if (
    result.sequence.length === 1 &&
    only?.pattern === 'dictionary' &&
    only.dictionaryName === 'passwords-common'
  ) {
    return 'leaked';
  }
  return result.score < MIN_SCORE ? 'guessable' : null;
}
