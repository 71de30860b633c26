const NL = 0x0a;
/**
 * The first block compared (then an eighth of it, and so on down to a byte). Each compare call
 * costs about as much as comparing 1 KB: 32 KB first took a 40 KB file's common run 2.8 µs
 * against 3.8 µs with 4 KB.
 */
const BLOCK = 32_768;
/** A probe is whole lines of at least this many bytes: shorter ones ("}") recur everywhere. */
const PROBE_MIN = 48;
/** Parts of the region shorter than this are not split further: prefiltering them costs less. */
const MIN_SPLIT = 512;
/** How far around its expected place a probe is looked for first. */
const NEAR = 2048;

/**
 * Counts shared bytes in place where it can (KeywordFinder does, for buffers in its memory): null
 * where it cannot, and Buffer.compare counts them.
 */
export interface InPlaceCompare {
  sharedForward(b: Buffer, bi: number, a: Buffer, ai: number, n: number): number | null;
  sharedBackward(b: Buffer, bi: number, a: Buffer, ai: number, n: number): number | null;
  indexIn(haystack: Buffer, needle: Buffer, from: number, to: number): number | null;
}

/**
 * A run of whole lines of `b`, `[bStart, bEnd)`, byte for byte the same as `a` from `aStart`: each
 * line of the run is a whole line of `a` too (preceded by a line break or the start of the part
 * searched, which is on a line boundary in both).
 */
export interface SharedRun {
  bStart: number;
  bEnd: number;
  aStart: number;
}

/**
 * Finds runs of lines that `b[bFrom, bTo)` shares with `a[aFrom, aTo)`, both parts starting and
 * ending on line boundaries. Not a diff: a run says only that those lines of `b` are lines of `a`
 * (whatever git's diff later pairs them with), so whatever is true of each of those lines of `a` on
 * its own (holding a detection line or not) is true of them. Divide and conquer: a probe of a few
 * lines from the middle of `b`'s part is looked for in `a`'s, near where it would be were the two
 * aligned, and the match is grown both ways at memory speed; the two sides left are split the same
 * way. A small edit to a long file leaves a few runs covering nearly all of it.
 */
export function sharedRuns(
  b: Buffer,
  bFrom: number,
  bTo: number,
  a: Buffer,
  aFrom: number,
  aTo: number,
  inPlace?: InPlaceCompare,
): SharedRun[] {
  const runs: SharedRun[] = [];
  const stack: [number, number, number, number][] = [[bFrom, bTo, aFrom, aTo]];
  while (stack.length > 0) {
    const [bs, be, as, ae] = stack.pop()!;
    if (be - bs < MIN_SPLIT || ae - as < PROBE_MIN) continue;
    const run = matchProbe(b, bs, be, a, as, ae, inPlace);
    if (run === null) continue;
    runs.push(run);
    const aEnd = run.aStart + (run.bEnd - run.bStart);
    stack.push([bs, run.bStart, as, run.aStart], [run.bEnd, be, aEnd, ae]);
  }
  return runs.sort((x, y) => x.bStart - y.bStart);
}

/** One probe from the middle of `b[bs, be)` looked for in `a[as, ae)` and grown; null if not found. */
function matchProbe(
  b: Buffer,
  bs: number,
  be: number,
  a: Buffer,
  as: number,
  ae: number,
  inPlace?: InPlaceCompare,
): SharedRun | null {
  const middle = bs + ((be - bs) >> 1);
  const m = middle === bs ? bs : b.indexOf(NL, middle - 1) + 1; // a line start at or after middle
  if (m <= 0 || m >= be) return null;
  let probeEnd = b.indexOf(NL, Math.min(m + PROBE_MIN, be) - 1);
  probeEnd = probeEnd === -1 || probeEnd >= be ? be : probeEnd + 1;
  if (probeEnd - m < PROBE_MIN && probeEnd !== be) return null;
  const probe = b.subarray(m, probeEnd);
  const expected = as + (m - bs);
  const q =
    findLine(
      a,
      probe,
      Math.max(as, expected - NEAR),
      Math.min(ae, expected + NEAR + probe.length),
      as,
      inPlace,
    ) ?? findLine(a, probe, as, ae, as, inPlace);
  if (q === null) return null;
  // A probe running to the end of b's part ends a line only where a's part ends too.
  if (probeEnd === be && b[be - 1] !== NL && q + probe.length !== ae) return null;
  let start = m - commonBackward(b, bs, m, a, as, q, inPlace);
  let end = probeEnd + commonForward(b, probeEnd, be, a, q + probe.length, ae, inPlace);
  // Whole lines only: a run starts after a line break inside it, or where both parts start; it ends
  // after a line break, or where both parts end.
  const startsLine = (at: number) =>
    (at === bs || b[at - 1] === NL) && (q - (m - at) === as || a[q - (m - at) - 1] === NL);
  // (m starts a line in both, so a line break is found before it whenever start is not one.)
  if (!startsLine(start)) start = b.indexOf(NL, start) + 1;
  const aEndOfRun = q + (end - m);
  if (!(end === be && aEndOfRun === ae)) end = b.lastIndexOf(NL, end - 1) + 1;
  if (end <= start) return null;
  return { bStart: start, bEnd: end, aStart: q - (m - start) };
}

/** The first place in `a[from, to)` where `probe` is a whole line's start (at `floor` or after a line break). */
function findLine(
  a: Buffer,
  probe: Buffer,
  from: number,
  to: number,
  floor: number,
  inPlace?: InPlaceCompare,
): number | null {
  let at = from;
  while (at + probe.length <= to) {
    const q = inPlace?.indexIn(a, probe, at, to) ?? a.indexOf(probe, at);
    if (q === -1 || q + probe.length > to) return null;
    if (q === floor || a[q - 1] === NL) return q;
    at = q + 1;
  }
  return null;
}

/**
 * How many bytes `b[.., bi)` and `a[.., ai)` share, going back no further than bs and as: counted in
 * place by `inPlace` where it can, else compared in blocks of 32 KB, then 4 KB, 512, 64, 8 and 1
 * bytes, so at memory speed.
 */
export function commonBackward(
  b: Buffer,
  bs: number,
  bi: number,
  a: Buffer,
  as: number,
  ai: number,
  inPlace?: InPlaceCompare,
): number {
  const room = Math.min(bi - bs, ai - as);
  const counted = inPlace?.sharedBackward(b, bi, a, ai, room);
  if (counted != null) return counted;
  let n = 0;
  for (let step = BLOCK; step >= 1; step >>= 3) {
    while (n + step <= room && b.compare(a, ai - n - step, ai - n, bi - n - step, bi - n) === 0) n += step;
  }
  return n;
}

/** How many bytes `b[bi, ..)` and `a[ai, ..)` share, going no further than be and ae (as above). */
export function commonForward(
  b: Buffer,
  bi: number,
  be: number,
  a: Buffer,
  ai: number,
  ae: number,
  inPlace?: InPlaceCompare,
): number {
  const room = Math.min(be - bi, ae - ai);
  const counted = inPlace?.sharedForward(b, bi, a, ai, room);
  if (counted != null) return counted;
  let n = 0;
  for (let step = BLOCK; step >= 1; step >>= 3) {
    while (n + step <= room && b.compare(a, ai + n, ai + n + step, bi + n, bi + n + step) === 0) n += step;
  }
  return n;
}
