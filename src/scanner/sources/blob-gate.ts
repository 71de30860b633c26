import { detectSecrets } from '../detect/detect-line.js';
import { KeywordFinder } from '../detect/keyword-finder.js';
import { commonBackward, commonForward, type InPlaceCompare, sharedRuns } from './shared-runs.js';

const NL = 0x0a;
const CR = 0x0d;

/**
 * Lines longer than this are not decoded: one with a keyword counts as a detection line outright
 * (the commit is then read through git's diff, which scans long lines in segments).
 */
const MAX_LINE = 1 << 20;
/** Kept from the end of an over-long line's last segment, so a keyword cut in two is still seen. */
const KEYWORD_OVERLAP = 64;
const PIECE = 64 << 10;
/** Lines whose verdict is remembered: the same lines recur in every version of a file. */
const VERDICT_CACHE_SIZE = 20_000;
const VERDICT_LINE_LIMIT = 256;

/**
 * Whether a blob holds a "detection line": a line where the prefilter hits and a rule matches, read
 * exactly as the diff path reads an added line (latin1 for the prefilter, UTF-8 without a trailing CR
 * for the rules). A commit can only yield a finding where it adds such a line, so a commit whose new
 * blobs hold none needs no line diff at all.
 *
 * Fed in pieces (`push`, then `end`); once a detection line is seen the rest is skipped.
 */
export class DetectionLineGate {
  private readonly verdicts = new Map<string, boolean>();
  private carry: Buffer[] = [];
  private carryLength = 0;
  /** Inside a line longer than MAX_LINE: only the keyword test applies to it. */
  private inLongLine = false;
  found = false;

  /**
   * `finder` finds the prefilter's keywords; contents that lie in its room are searched in place
   * (the deferred gate holds its blobs there).
   */
  constructor(private readonly finder = new KeywordFinder()) {}

  /** Starts a new blob. */
  reset(): void {
    this.carry = [];
    this.carryLength = 0;
    this.inLongLine = false;
    this.found = false;
  }

  push(data: Buffer): void {
    // In pieces of at most PIECE bytes: the strings the prefilter runs on stay small enough to die
    // young (a string of a whole blob lands in V8's old generation and holds memory until a full GC:
    // measured 240 MB instead of 110 MB resident on a 39,000-commit history).
    for (let at = 0; at < data.length && !this.found; at += PIECE) {
      this.pushPiece(at === 0 && data.length <= PIECE ? data : data.subarray(at, at + PIECE));
    }
  }

  private pushPiece(data: Buffer): void {
    const firstNl = data.indexOf(NL);
    if (firstNl === -1) {
      this.stash(data);
      return;
    }
    let from = 0;
    if (this.carryLength > 0 || this.inLongLine) {
      this.carry.push(data.subarray(0, firstNl));
      this.carryLength += firstNl;
      this.finishCarriedLine();
      from = firstNl + 1;
    }
    const lastNl = data.lastIndexOf(NL);
    if (lastNl >= from) this.scanLines(data, from, lastNl + 1);
    if (lastNl + 1 < data.length) this.stash(data.subarray(lastNl + 1));
  }

  /** The blob is complete; returns whether it holds a detection line. */
  end(): boolean {
    if (!this.found && (this.carryLength > 0 || this.inLongLine)) this.finishCarriedLine();
    return this.found;
  }

  /** Scans a whole blob, or its region `[from, to)` that starts and ends on line boundaries. */
  scan(blob: Buffer, from = 0, to = blob.length): boolean {
    this.reset();
    this.push(blob.subarray(from, to));
    return this.end();
  }

  /**
   * Every detection line of a held blob's part `[from, to)` (on line boundaries): each line's start is
   * pushed on `out`, in order. The same test per line as `scan` (a line over MAX_LINE is one if it
   * holds a keyword), but it goes on to the end.
   */
  detectionLines(blob: Buffer, from: number, to: number, out: number[]): void {
    let at = from;
    while (at < to) {
      let end = Math.min(to, at + PIECE);
      if (end < to) {
        const nl = blob.lastIndexOf(NL, end - 1);
        if (nl >= at) {
          end = nl + 1;
        } else {
          // One line longer than a piece.
          const lineEnd = blob.indexOf(NL, at);
          end = lineEnd === -1 || lineEnd >= to ? to : lineEnd + 1;
          const contentEnd = blob[end - 1] === NL ? end - 1 : end;
          if (contentEnd - at > MAX_LINE) {
            if (this.hasKeyword(blob.subarray(at, contentEnd))) out.push(at);
            at = end;
            continue;
          }
        }
      }
      this.scanLines(blob, at, end, out);
      at = end;
    }
  }

  /**
   * Every detection line of `blob`, given those of a version it was compared with (`baseLines`, all
   * of `base`'s), without prefiltering the lines the two share: their common first and last lines
   * (outside `[from, to)`, changedRegion's answer) and, inside, every run of whole lines `base` has
   * too (shared-runs.ts). Whether a line is a detection line depends on its bytes alone, so such a
   * line is one exactly when it is one in `base`. A small edit to a long file leaves a few lines to
   * read, where the changed region is most of the file when edits are far apart.
   */
  detectionLinesSharing(blob: Buffer, from: number, to: number, base: Buffer, baseLines: number[]): number[] {
    const baseTo = to - (blob.length - base.length);
    const lines: number[] = [];
    const copy = (baseFrom: number, baseEnd: number, at: number) => {
      for (const line of baseLines) if (line >= baseFrom && line < baseEnd) lines.push(line - baseFrom + at);
    };
    copy(0, from, 0);
    let at = from;
    for (const run of sharedRuns(blob, from, to, base, from, baseTo, this.finder)) {
      if (run.bStart > at) this.detectionLines(blob, at, run.bStart, lines);
      copy(run.aStart, run.aStart + (run.bEnd - run.bStart), run.bStart);
      at = run.bEnd;
    }
    if (to > at) this.detectionLines(blob, at, to, lines);
    copy(baseTo, base.length, to);
    return lines;
  }

  private stash(part: Buffer): void {
    // Copy: the pipe may reuse its chunk's memory.
    this.carry.push(Buffer.from(part));
    this.carryLength += part.length;
    if (this.carryLength > MAX_LINE) {
      const text = Buffer.concat(this.carry);
      this.inLongLine = true;
      if (this.hasKeyword(text)) this.found = true;
      const keep = Buffer.from(text.subarray(text.length - KEYWORD_OVERLAP));
      this.carry = [keep];
      this.carryLength = keep.length;
    }
  }

  private finishCarriedLine(): void {
    const line = Buffer.concat(this.carry);
    this.carry = [];
    this.carryLength = 0;
    if (this.inLongLine) {
      this.inLongLine = false;
      if (this.hasKeyword(line)) this.found = true;
      return;
    }
    this.scanLines(line, 0, line.length);
  }

  private hasKeyword(bytes: Buffer): boolean {
    return this.finder.find(bytes, 0, bytes.length) !== -1;
  }

  /**
   * Complete lines in buf[from, to): the prefilter over all of them, the rules on lines it hits.
   * Pushes each detection line's start on `out`, or (without `out`) stops at the first one.
   */
  private scanLines(buf: Buffer, from: number, to: number, out?: number[]): void {
    for (let at = from; at < to; ) {
      const hit = this.finder.find(buf, at, to);
      if (hit === -1) return;
      const start = Math.max(from, buf.lastIndexOf(NL, hit) + 1);
      let end = buf.indexOf(NL, hit);
      if (end === -1 || end > to) end = to;
      if (end - start > MAX_LINE || this.isDetectionLine(buf, start, end)) {
        this.found = true;
        if (out === undefined) return;
        out.push(start);
      }
      at = end;
    }
  }

  private isDetectionLine(buf: Buffer, start: number, end: number): boolean {
    const contentEnd = end > start && buf[end - 1] === CR ? end - 1 : end;
    const line = buf.toString('utf8', start, contentEnd);
    // Only short lines are remembered: a minified line would hold its memory for nothing.
    if (line.length > VERDICT_LINE_LIMIT) return detectSecrets(line).length > 0;
    let verdict = this.verdicts.get(line);
    if (verdict === undefined) {
      verdict = detectSecrets(line).length > 0;
      if (this.verdicts.size >= VERDICT_CACHE_SIZE) this.verdicts.clear();
      this.verdicts.set(line, verdict);
    }
    return verdict;
  }
}

/**
 * The part of `blob` that can hold a line `reference` does not have: everything but the lines of
 * their common prefix and common suffix (a small edit to a long file leaves a few lines). Returned
 * on line boundaries. When `reference` holds no detection line, neither do the lines outside this
 * region, whatever git's diff later calls added. `inPlace` counts the common bytes where both lie in
 * its memory.
 */
export function changedRegion(blob: Buffer, reference: Buffer, inPlace?: InPlaceCompare): [number, number] {
  const prefix = commonForward(blob, 0, blob.length, reference, 0, reference.length, inPlace);
  // The suffix may not overlap the prefix in either buffer.
  const suffix = commonBackward(blob, prefix, blob.length, reference, prefix, reference.length, inPlace);
  // Whole lines only: from the start of the line the first difference is in, to the end of the line
  // that starts at or before the common suffix (only a line whose preceding newline is itself in the
  // common suffix is sure to be one of the reference's lines).
  const from = prefix === 0 ? 0 : blob.lastIndexOf(NL, prefix - 1) + 1;
  const nl = blob.indexOf(NL, blob.length - suffix);
  const to = nl === -1 ? blob.length : nl + 1;
  return [from, Math.max(from, to)];
}
