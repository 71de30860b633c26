import { unquoteGitPath } from './git-path.js';

/** A commit header as printed by our `--format` (see COMMIT_FORMAT). */
export interface CommitInfo {
  sha: string;
  author: string;
  date: string;
}

export interface AddedLineSink {
  /** A line added by `commit` at `path`:`lineNo` that the prefilter flagged. `text` has no prefix or CR. */
  onCandidateLine(commit: CommitInfo, path: string, lineNo: number, text: string): void;
}

/**
 * The patch options whose output the parser reads, pinned so that no user configuration (color,
 * prefixes, external diff drivers, textconv, submodule logs) changes it: only changed lines, every
 * hunk apart, renames found, `a/` and `b/` prefixes. The history's `git log` and the staged
 * changes' `git diff --cached` both take them.
 */
export const PATCH_OPTIONS = [
  '-p',
  '-U0',
  '-M',
  '--inter-hunk-context=0',
  '--no-color',
  '--no-ext-diff',
  '--no-textconv',
  '--no-relative',
  '--submodule=short',
  '--src-prefix=a/',
  '--dst-prefix=b/',
];

/** The commit header format the parser expects: `\x01<sha>\x1f<author>\x1f<author date>`. */
export const COMMIT_FORMAT = '--format=%x01%H%x1f%an%x1f%aI';

const NL = 0x0a;
const CR = 0x0d;
const PLUS = 0x2b;
const MINUS = 0x2d;
const SPACE = 0x20;
const AT = 0x40;
const BACKSLASH = 0x5c;
const COMMIT_MARK = 0x01;

/** Lines longer than this are scanned in overlapping segments so memory stays bounded. */
const MAX_SEGMENT = 1 << 20;

/** How a line of a hunk relates to the new file. */
enum LineKind {
  /** Not a content line (a header, or outside a hunk). */
  Other = 0,
  /** Added relative to every parent: scanned, and counts in the new file. */
  Added = 1,
  /** In the new file but not added (context, or came from one of a merge's parents). */
  Kept = 2,
  /** Only in a parent: does not count. */
  Removed = 3,
}
/** Overlap between segments: longer than any fixed-length token, so none is cut in two. */
const SEGMENT_OVERLAP = 4096;

/**
 * Streaming parser of `git log -p -U0 --cc` output. It never holds more than one chunk plus one
 * (bounded) line, tracks the 1-based line number of every line in the new file, and hands on only the
 * added lines where the prefilter hit: the per-line work for everything else is a few comparisons.
 *
 * Added lines: in a normal diff, lines starting with `+`; in a combined diff of a merge with N parents,
 * lines whose N prefix columns are all `+` (in none of the parents). Headers are recognized by state:
 * `---`/`+++` are file headers only between a `diff` line and the first hunk.
 */
export class DiffStreamParser {
  private commit: CommitInfo | null = null;
  private path: string | null = null;
  private inHunk = false;
  /** Prefix columns of the current hunk: 1 for a normal diff, N for a merge with N parents. */
  private columns = 1;
  private lineNo = 0;
  private pending: Buffer[] = [];
  private pendingLength = 0;
  /** Set while a line longer than MAX_SEGMENT is being scanned segment by segment. */
  private longLine: { kind: LineKind; lineNo: number } | null = null;
  commitsSeen = 0;

  constructor(
    private readonly sink: AddedLineSink,
    private readonly prefilter: RegExp,
    private readonly onCommit?: (commit: CommitInfo) => void,
  ) {}

  push(chunk: Buffer): void {
    const firstNl = chunk.indexOf(NL);
    if (firstNl === -1) {
      this.stash(chunk);
      return;
    }
    let from = 0;
    if (this.pendingLength > 0) {
      this.pending.push(chunk.subarray(0, firstNl + 1));
      const line = Buffer.concat(this.pending);
      this.pending = [];
      this.pendingLength = 0;
      this.processBuffer(line, 0, line.length);
      from = firstNl + 1;
    }
    const lastNl = chunk.lastIndexOf(NL);
    if (lastNl >= from) this.processBuffer(chunk, from, lastNl + 1);
    if (lastNl + 1 < chunk.length) this.stash(chunk.subarray(lastNl + 1));
  }

  /** Flushes a last line without a newline. */
  end(): void {
    if (this.pendingLength === 0) return;
    const line = Buffer.concat([...this.pending, Buffer.from('\n')]);
    this.pending = [];
    this.pendingLength = 0;
    this.processBuffer(line, 0, line.length);
  }

  private stash(part: Buffer): void {
    // Copy: the stream may reuse its chunk's memory.
    this.pending.push(Buffer.from(part));
    this.pendingLength += part.length;
    if (this.pendingLength > MAX_SEGMENT) this.scanLongLineSegment();
  }

  /** Scans what we have of an over-long line and keeps only the overlap for the next segment. */
  private scanLongLineSegment(): void {
    const buf = Buffer.concat(this.pending);
    let start = 0;
    if (this.longLine === null) {
      const kind = this.lineKind(buf.toString('latin1', 0, this.columns), 0, buf[0] ?? 0);
      this.longLine = { kind, lineNo: this.lineNo };
      start = kind === LineKind.Added ? this.columns : 0;
    }
    if (this.longLine.kind === LineKind.Added) this.scanSegment(buf, start, buf.length, this.longLine.lineNo);
    const keep = Buffer.from(buf.subarray(Math.max(start, buf.length - SEGMENT_OVERLAP)));
    this.pending = [keep];
    this.pendingLength = keep.length;
  }

  /** Processes complete lines in buf[from, to); `to` is just past a newline. */
  private processBuffer(buf: Buffer, from: number, to: number): void {
    if (this.longLine !== null) {
      // The rest of an over-long line: finish it, then carry on with what follows.
      const nl = buf.indexOf(NL, from);
      const { kind, lineNo } = this.longLine;
      if (kind === LineKind.Added) this.scanSegment(buf, from, trimEol(buf, from, nl), lineNo);
      if (kind === LineKind.Added || kind === LineKind.Kept) this.lineNo++;
      this.longLine = null;
      from = nl + 1;
      if (from >= to) return;
    }
    const text = buf.toString('latin1', from, to);
    const base = from;
    const prefilter = this.prefilter;
    prefilter.lastIndex = 0;
    let nextHit = -2; // -2: not searched yet; -1: no hit in the rest of the text
    let pos = 0;
    const end = text.length;
    while (pos < end) {
      let nl = text.indexOf('\n', pos);
      if (nl === -1) nl = end;
      const c = text.charCodeAt(pos);
      const kind = this.lineKind(text, pos, c);
      if (kind === LineKind.Added) {
        if (nextHit !== -1 && nextHit < pos + this.columns) {
          prefilter.lastIndex = pos + this.columns;
          const m = prefilter.exec(text);
          nextHit = m === null ? -1 : m.index;
        }
        if (nextHit !== -1 && nextHit < nl) {
          const lineEnd = trimEol(buf, base + pos, base + nl);
          this.emit(buf.toString('utf8', base + pos + this.columns, lineEnd), this.lineNo);
        }
        this.lineNo++;
      } else if (kind === LineKind.Kept) {
        this.lineNo++;
      } else if (kind === LineKind.Other && c !== BACKSLASH) {
        // `\ No newline at end of file` is neither content nor structure.
        this.structuralLine(buf, base + pos, base + nl, c);
      }
      pos = nl + 1;
    }
  }

  /**
   * A content line starts with `+`, `-` or space in each of its prefix columns (one per parent). It is
   * added when every column is `+`, and absent from the new file when any column is `-`.
   */
  private lineKind(text: string, pos: number, c: number): LineKind {
    if (!this.inHunk || (c !== PLUS && c !== MINUS && c !== SPACE)) return LineKind.Other;
    if (this.columns === 1)
      return c === PLUS ? LineKind.Added : c === MINUS ? LineKind.Removed : LineKind.Kept;
    let allPlus = true;
    for (let k = 0; k < this.columns; k++) {
      const ch = text.charCodeAt(pos + k);
      if (ch === MINUS) return LineKind.Removed;
      if (ch !== PLUS) allPlus = false;
    }
    return allPlus ? LineKind.Added : LineKind.Kept;
  }

  private scanSegment(buf: Buffer, from: number, to: number, lineNo: number): void {
    const text = buf.toString('latin1', from, to);
    this.prefilter.lastIndex = 0;
    if (this.prefilter.test(text)) this.emit(buf.toString('utf8', from, to), lineNo);
  }

  private emit(text: string, lineNo: number): void {
    if (this.commit !== null && this.path !== null) {
      this.sink.onCandidateLine(this.commit, this.path, lineNo, text);
    }
  }

  private structuralLine(buf: Buffer, start: number, end: number, c: number): void {
    if (c === COMMIT_MARK) {
      const [sha = '', author = '', date = ''] = buf.toString('utf8', start + 1, end).split('\x1f');
      this.commit = { sha, author, date };
      this.commitsSeen++;
      this.onCommit?.(this.commit);
      this.path = null;
      this.inHunk = false;
    } else if (c === AT) {
      this.startHunk(buf.toString('latin1', start, end));
    } else if (c === 0x64 /* d */ && buf.toString('latin1', start, start + 5) === 'diff ') {
      this.path = null;
      this.inHunk = false;
    } else if (c === PLUS && !this.inHunk && buf.toString('latin1', start, start + 4) === '+++ ') {
      this.path = parseNewPath(buf.subarray(start + 4, end));
    }
  }

  /** `@@ -a,b +c,d @@` or, for a merge with N parents, N+1 `@` and N `-` ranges. */
  private startHunk(header: string): void {
    let ats = 0;
    while (header.charCodeAt(ats) === AT) ats++;
    const plus = header.indexOf(' +', ats);
    if (ats < 2 || plus === -1 || this.path === null) {
      this.inHunk = false;
      return;
    }
    this.columns = ats - 1;
    this.lineNo = Number.parseInt(header.slice(plus + 2), 10);
    this.inHunk = true;
  }
}

/** The end of a line's content: before the newline at `nl`, and before a CR that precedes it. */
function trimEol(buf: Buffer, start: number, nl: number): number {
  return nl > start && buf[nl - 1] === CR ? nl - 1 : nl;
}

/**
 * The path of a `+++ ` header: `b/<path>`, possibly C-quoted, with a trailing TAB when the path has a
 * space (git adds it for patch(1)); `/dev/null` for a deleted file. Returns null for a deletion.
 */
function parseNewPath(raw: Buffer): string | null {
  let end = raw.length;
  if (end > 0 && raw[end - 1] === CR) end--;
  if (end > 0 && raw[end - 1] === 0x09) end--;
  const bytes = raw.subarray(0, end);
  if (bytes.length === 9 && bytes.toString('latin1') === '/dev/null') return null;
  const path = bytes[0] === 0x22 ? unquoteGitPath(bytes) : bytes;
  // Our `--dst-prefix=b/` guarantees the prefix.
  return path.toString('utf8', 2, path.length);
}
