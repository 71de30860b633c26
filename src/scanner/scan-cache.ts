import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { RULES, ruleById } from './rules/index.js';
import type { RuleId } from './types.js';

/**
 * The incremental-scan cache (svc scan --cache): the ids of the commits a scan read and found nothing in,
 * the other commits it listed with where their findings are (rule, path, line: what a report's
 * fingerprint already shows; they are read again next time, only at those paths, so that their
 * secrets are in memory for the credential checks), a digest of the refs they were listed from and
 * the commits those refs pointed at (incremental.ts lists only what is new since). No secret material: no value, not even masked.
 *
 * Layout: a first line naming the format, a JSON header line, then one commit id per line, the
 * clean ones first, each of the others followed by a tab and the JSON list of its findings. The
 * header carries the scanner and rule versions (a cache from another one is not trusted) and the
 * SHA-256 of the lines after it (a cut-short or edited file is not trusted either).
 */
const FORMAT_NAME = 'svc-scan-cache ';
const MAGIC = `${FORMAT_NAME}2`;

/** Where a finding is, without what it is: `[ruleId, path, line]`. */
export type FindingPlace = [ruleId: RuleId, path: string, line: number];

export interface CacheKey {
  /** The product version: a new scanner may read history differently. */
  scanner: string;
  /** rulesDigest(): a rule that changed may find something in a commit that was clean. */
  rules: string;
}

export interface CacheContent {
  /** Commits read (or vouched for) and found clean. */
  clean: string[];
  /** The other commits listed: those with findings, and where those findings are. */
  recheck: Map<string, FindingPlace[]>;
  /** The refs digest when clean + recheck were every commit listed from those refs; else null. */
  refs: string | null;
  /**
   * The commits those refs pointed at, when clean + recheck were every commit reachable from them
   * (a complete listing, not a shallow clone); else null.
   */
  tips: string[] | null;
}

const empty = (): CacheContent => ({ clean: [], recheck: new Map(), refs: null, tips: null });

/** A digest of everything in the rule set that decides what is found. */
export function rulesDigest(): string {
  const hash = createHash('sha256');
  for (const rule of RULES) {
    hash.update(
      JSON.stringify([
        rule.id,
        rule.keywords,
        rule.pattern.source,
        rule.pattern.flags,
        String(rule.accept ?? ''),
        String(rule.mask ?? ''),
        rule.samples,
      ]),
    );
  }
  return hash.digest('hex').slice(0, 16);
}

/**
 * What `file` records, or nothing when there is no usable cache (absent: silently, the first scan;
 * damaged or from another version: with a warning, and a full scan).
 */
export async function loadScanCache(
  file: string,
  key: CacheKey,
  warn: (message: string) => void,
): Promise<CacheContent> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT')
      warn(`cannot read the scan cache ${file}; scanning in full`);
    return empty();
  }
  const firstNl = text.indexOf('\n');
  const secondNl = text.indexOf('\n', firstNl + 1);
  const magic = firstNl === -1 ? text : text.slice(0, firstNl);
  if (magic !== MAGIC && magic.startsWith(FORMAT_NAME)) {
    warn(`the scan cache ${file} was written by another scanner or rule version; scanning in full`);
    return empty();
  }
  const header =
    firstNl === -1 || secondNl === -1
      ? null
      : parseHeader(text.slice(0, firstNl), text.slice(firstNl + 1, secondNl));
  const body = secondNl === -1 ? '' : text.slice(secondNl + 1);
  const lines = body === '' ? [] : body.slice(0, -1).split('\n');
  const recheck = header === null ? null : parseRecheck(lines.slice(header.clean));
  if (header === null || header.sha256 !== sha256(body) || header.clean > lines.length || recheck === null) {
    warn(`the scan cache ${file} is damaged; ignoring it and scanning in full`);
    return empty();
  }
  if (header.scanner !== key.scanner || header.rules !== key.rules) {
    warn(`the scan cache ${file} was written by another scanner or rule version; scanning in full`);
    return empty();
  }
  return { clean: lines.slice(0, header.clean), recheck, refs: header.refs, tips: header.tips ?? null };
}

/**
 * Rewrites the cache atomically: a temporary file beside it, then a rename over it. Its folder is
 * made when missing (`--cache .svc-cache/scan.cache` on a fresh clone).
 */
export async function saveScanCache(file: string, key: CacheKey, content: CacheContent): Promise<void> {
  const clean = [...content.clean].sort();
  const recheck = [...content.recheck]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([id, places]) => `${id}\t${JSON.stringify(places)}`);
  const body = [...clean, ...recheck].map((line) => `${line}\n`).join('');
  const header = JSON.stringify({
    scanner: key.scanner,
    rules: key.rules,
    refs: content.refs,
    tips: content.tips === null ? null : [...content.tips].sort(),
    clean: clean.length,
    sha256: sha256(body),
  });
  const temporary = `${file}.${process.pid}.tmp`;
  await mkdir(dirname(file), { recursive: true });
  try {
    await writeFile(temporary, `${MAGIC}\n${header}\n${body}`, 'utf8');
    await rename(temporary, file);
  } catch (e) {
    await rm(temporary, { force: true });
    throw e;
  }
}

interface Header extends CacheKey {
  refs: string | null;
  /** Absent in caches written before tips were kept: read as null. */
  tips?: string[] | null;
  clean: number;
  sha256: string;
}

function parseHeader(magic: string, json: string): Header | null {
  if (magic !== MAGIC) return null;
  try {
    const h = JSON.parse(json) as Partial<Header>;
    const ok =
      [h.scanner, h.rules, h.sha256].every((v) => typeof v === 'string') &&
      (h.refs === null || typeof h.refs === 'string') &&
      (h.tips === undefined || h.tips === null || (Array.isArray(h.tips) && h.tips.every(isCommitId))) &&
      Number.isInteger(h.clean);
    return ok ? (h as Header) : null;
  } catch {
    return null;
  }
}

/** The commits with findings, or null when a line is not `<id>\t<JSON list of places>`. */
function parseRecheck(lines: string[]): Map<string, FindingPlace[]> | null {
  const recheck = new Map<string, FindingPlace[]>();
  for (const line of lines) {
    const tab = line.indexOf('\t');
    if (tab === -1) return null;
    let places: unknown;
    try {
      places = JSON.parse(line.slice(tab + 1));
    } catch {
      return null;
    }
    if (!Array.isArray(places) || places.length === 0 || !places.every(isFindingPlace)) return null;
    recheck.set(line.slice(0, tab), places);
  }
  return recheck;
}

function isFindingPlace(value: unknown): value is FindingPlace {
  return (
    Array.isArray(value) &&
    value.length === 3 &&
    ruleById(value[0]) !== undefined &&
    typeof value[1] === 'string' &&
    value[1] !== '' &&
    Number.isInteger(value[2])
  );
}

const isCommitId = (value: unknown): boolean => typeof value === 'string' && /^[0-9a-f]{40,64}$/.test(value);

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');
