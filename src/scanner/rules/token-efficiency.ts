import { BPE_VOCABULARY } from './bpe-vocabulary.js';

/**
 * How many characters each BPE token of cl100k_base covers in a text, lowercased (Betterleaks'
 * "token efficiency"). A tokenizer trained on text and code has one token for a common word or
 * word piece, so words and identifiers (`getTokenByRangeStart`, `action_controller.csrf_token`)
 * come to 3 or more characters a token, while a random string breaks into pieces of one or two
 * characters: 120,000 random hex, base62 and lower-case strings of 16 to 32 characters never reached
 * 2.7 (docs/ARCHITECTURE.md, "The generic rule's precision"). Lowercased because the vocabulary
 * splits upper-case words into many pieces (`HTTP_X_CSRF_Token`), which read as random otherwise.
 */
export function tokenEfficiency(text: string): number {
  const lower = text.toLowerCase();
  return lower.length === 0 ? 0 : lower.length / bpeTokenCount(lower);
}

/**
 * The pieces cl100k_base merges within, never across (its pre-tokenizer): contractions, a letter
 * run with one leading non-letter, up to three digits, a run of other symbols, white space.
 */
const PIECES =
  /'(?:s|t|re|ve|m|ll|d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+/gu;

/** Token ranks, built on first use: only values that passed every other gate of the rule get here. */
let ranks: Map<string, number> | undefined;
function rankOf(): Map<string, number> {
  if (ranks === undefined) {
    ranks = new Map();
    let rank = 0;
    for (const token of BPE_VOCABULARY.split('\n')) ranks.set(token, rank++);
  }
  return ranks;
}

/**
 * The number of cl100k_base tokens of a lower-case text: within each piece, the adjacent pair whose
 * merge has the lowest rank is merged until no pair is a token (byte-pair encoding, as tiktoken
 * does it). A character outside the vocabulary (not printable ASCII) stays a token of its own.
 */
export function bpeTokenCount(lower: string): number {
  const vocabulary = rankOf();
  let count = 0;
  for (const [piece] of lower.matchAll(PIECES)) {
    if (vocabulary.has(piece)) {
      count++;
      continue;
    }
    const parts = [...piece];
    for (;;) {
      let best = -1;
      let bestRank = Number.POSITIVE_INFINITY;
      for (let i = 0; i + 1 < parts.length; i++) {
        const rank = vocabulary.get(parts[i]! + parts[i + 1]!);
        if (rank !== undefined && rank < bestRank) {
          bestRank = rank;
          best = i;
        }
      }
      if (best < 0) break;
      parts.splice(best, 2, parts[best]! + parts[best + 1]!);
    }
    count += parts.length;
  }
  return count;
}
