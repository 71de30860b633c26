import { COMMIT_FORMAT, type CommitInfo } from './diff-parser.js';
import { BOUNDED_PACK_MEMORY, isOneInputLine, runGit } from './git.js';
import type { HistoryScanOptions } from './history.js';

const NL = 0x0a;
const CR = 0x0d;
/**
 * Longer lines are left to git's diff, which scans them in segments (diff-parser.ts): a finding
 * there comes from a segment's text, not the whole line's.
 */
const MAX_LINE = 256 << 10;

/** A line of a commit's version of a file: where a cache recorded a finding. */
export interface LinePlace {
  commit: string;
  path: string;
  line: number;
}

/**
 * Hands the sink each place's line as git's diff would have, without a diff: the commit's metadata
 * in the diff path's own format, and the line from the file as the commit has it (`commit:path`:
 * a merge's result, a renamed file's new name), decoded as the diff parser decodes an added line
 * and given only where the prefilter hits. One `git log` without `-p` and one `git cat-file`, for
 * any number of places. A place it cannot read this way (a path holding a line break, a missing
 * object, a line too long or past the end) is simply not given: the caller reads those commits
 * through git's diff.
 */
export async function readFindingLines(options: HistoryScanOptions, places: LinePlace[]): Promise<void> {
  const readable = places.filter((p) => isOneInputLine(p.path));
  if (readable.length === 0) return;
  const commits = [...new Set(readable.map((p) => p.commit))];
  // One file's versions after another: git rebuilds each from the one before, still in its cache,
  // rather than each from far down its delta chain (request-order.ts measured the same for blobs).
  const files = [...new Set(readable.map((p) => `${p.commit}:${p.path}`))].sort(byPath);
  const [log, blobs] = await Promise.all([
    runGit(
      options.git,
      [
        '-c',
        'log.showSignature=false',
        'log',
        '--no-walk=unsorted',
        '--stdin',
        COMMIT_FORMAT,
        '--encoding=UTF-8',
      ],
      commits.map((c) => `${c}\n`).join(''),
    ),
    runGit(options.git, [...BOUNDED_PACK_MEMORY, 'cat-file', '--batch'], files.map((f) => `${f}\n`).join('')),
  ]);
  if (log.code !== 0 || blobs.code !== 0) return;
  const info = commitInfos(log.stdout);
  const contents = batchContents(blobs.stdout, files);
  const prefilter = new RegExp(options.prefilter.source, options.prefilter.flags);
  for (const place of readable) {
    const commit = info.get(place.commit);
    const content = contents.get(`${place.commit}:${place.path}`);
    const line = content === undefined ? null : lineOf(content, place.line);
    if (commit === undefined || line === null) continue;
    prefilter.lastIndex = 0;
    if (!prefilter.test(line.toString('latin1'))) continue;
    options.sink.onCandidateLine(commit, place.path, place.line, line.toString('utf8'));
  }
}

/** Orders `<commit>:<path>` names by path (a stable sort keeps each path's versions in order). */
function byPath(x: string, y: string): number {
  const px = x.slice(x.indexOf(':') + 1);
  const py = y.slice(y.indexOf(':') + 1);
  return px < py ? -1 : px > py ? 1 : 0;
}

/** `\x01<sha>\x1f<author>\x1f<date>` records, as the diff parser reads them. */
function commitInfos(out: Buffer): Map<string, CommitInfo> {
  const infos = new Map<string, CommitInfo>();
  for (const record of out.toString('utf8').split('\x01')) {
    const [sha = '', author = '', date = ''] = record.replace(/\n$/, '').split('\x1f');
    if (sha !== '') infos.set(sha, { sha, author, date });
  }
  return infos;
}

/** The blobs of a `git cat-file --batch` answer, by the name each was asked for. */
function batchContents(out: Buffer, names: string[]): Map<string, Buffer> {
  const contents = new Map<string, Buffer>();
  let at = 0;
  for (const name of names) {
    const nl = out.indexOf(NL, at);
    if (nl === -1) break;
    const [, type, size] = out.toString('latin1', at, nl).split(' ');
    at = nl + 1;
    if (size === undefined) continue; // `<name> missing` (or ambiguous)
    const end = at + Number(size);
    if (type === 'blob') contents.set(name, out.subarray(at, end));
    at = end + 1;
  }
  return contents;
}

/** Line `n` (from 1) without its newline and a CR before it, or null when there is none that short. */
function lineOf(content: Buffer, n: number): Buffer | null {
  let start = 0;
  for (let i = 1; i < n; i++) {
    const nl = content.indexOf(NL, start);
    if (nl === -1) return null;
    start = nl + 1;
  }
  if (start >= content.length) return null;
  let end = content.indexOf(NL, start);
  if (end === -1) end = content.length;
  if (end > start && content[end - 1] === CR) end--;
  return end - start > MAX_LINE ? null : content.subarray(start, end);
}
