import { invalidInput } from './errors.js';

const MAX_EMAIL_LENGTH = 254;
/** One @, something on each side, a dot in the domain, no spaces: enough to catch typos. */
const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;
/**
 * Characters an address must not hold (contract 6): controls (NUL, NEL...), format characters (zero
 * width space and joiners, bidirectional marks and overrides such as RLO), separators other than the
 * plain space (no-break and other spaces, line and paragraph separators), surrogates, private-use and
 * unassigned code points, and everything Unicode says renders as nothing (Hangul fillers, variation
 * selectors, the combining grapheme joiner). Each would let two addresses look alike on screen and in
 * the operator's commands while being different accounts, or hide what an address says.
 */
export const INVISIBLE =
  /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]|(?! )\p{Zs}/u;

export const EMAIL_INVALID = 'enter a valid email address, like name@example.com';
export const EMAIL_INVISIBLE =
  'the email address holds an invisible, control or formatting character; type it again';

/**
 * The one form of an email address every entry point uses (sign-up, sign-in, GitHub, svc admin):
 * plain spaces around it dropped, NFC (a composed and a decomposed "é" are one address), lower case
 * (JavaScript's Unicode lower-casing, which is case folding for all but a few letters such as ß),
 * and refused when it holds a character from INVISIBLE or is not shaped like an address.
 */
export function normalizeEmail(raw: string): string {
  const trimmed = raw.replace(/^ +| +$/g, '');
  if (INVISIBLE.test(trimmed)) throw invalidInput(EMAIL_INVISIBLE);
  const email = trimmed.normalize('NFC').toLowerCase().normalize('NFC');
  if (email.length > MAX_EMAIL_LENGTH || !EMAIL.test(email)) throw invalidInput(EMAIL_INVALID);
  return email;
}
