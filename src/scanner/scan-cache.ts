import { createHash } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { RULES } from './rules/index.js';

/**
 * The incremental-scan cache (svc scan --cache): the ids of the commits a scan read and found nothing in,
 * the ids of the other commits it listed (read again next time, so their secrets are in memory for
 * the credential checks), and a digest of the refs they were listed from. Nothing else: no finding,
 * no path, no masked value.
 *
 * Layout: a first line naming the format, a JSON header line, then one commit id per line, the
 * clean ones first. The header carries the scanner and rule versions (a cache from another one is
 * not trusted) and the SHA-256 of the id lines (a cut-short or edited file is not trusted either).
 */
const MAGIC = 'svc-scan-cache 1';

export interface CacheKey {
  /** The product version: a new scanner may read history differently. */
  scanner: string;
  /** rulesDigest(): a rule that changed may find something in a commit that was clean. */
  rules: string;
}

export interface CacheContent {
  /** Commits read (or vouched for) and found clean. */
  clean: string[];
  /** The other commits listed: those with findings. */
  recheck: string[];
  /** The refs digest when clean + recheck were every commit listed from those refs; else null. */
  refs: string | null;
}

const EMPTY: CacheContent = { clean: [], recheck: [], refs: null };

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
    text = await readFile(file, 'latin1');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT')
      warn(`cannot read the scan cache ${file}; scanning in full`);
    return EMPTY;
  }
  const firstNl = text.indexOf('\n');
  const secondNl = text.indexOf('\n', firstNl + 1);
  const header =
    firstNl === -1 || secondNl === -1
      ? null
      : parseHeader(text.slice(0, firstNl), text.slice(firstNl + 1, secondNl));
  const body = secondNl === -1 ? '' : text.slice(secondNl + 1);
  const ids = body === '' ? [] : body.slice(0, -1).split('\n');
  if (header === null || header.sha256 !== sha256(body) || header.clean > ids.length) {
    warn(`the scan cache ${file} is damaged; ignoring it and scanning in full`);
    return EMPTY;
  }
  if (header.scanner !== key.scanner || header.rules !== key.rules) {
    warn(`the scan cache ${file} was written by another scanner or rule version; scanning in full`);
    return EMPTY;
  }
  return { clean: ids.slice(0, header.clean), recheck: ids.slice(header.clean), refs: header.refs };
}

/** Rewrites the cache atomically: a temporary file beside it, then a rename over it. */
export async function saveScanCache(file: string, key: CacheKey, content: CacheContent): Promise<void> {
  const clean = [...content.clean].sort();
  const body = [...clean, ...[...content.recheck].sort()].map((id) => `${id}\n`).join('');
  const header = JSON.stringify({
    scanner: key.scanner,
    rules: key.rules,
    refs: content.refs,
    clean: clean.length,
    sha256: sha256(body),
  });
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    await writeFile(temporary, `${MAGIC}\n${header}\n${body}`, 'latin1');
    await rename(temporary, file);
  } catch (e) {
    await rm(temporary, { force: true });
    throw e;
  }
}

interface Header extends CacheKey {
  refs: string | null;
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
      Number.isInteger(h.clean);
    return ok ? (h as Header) : null;
  } catch {
    return null;
  }
}

const sha256 = (text: string): string => createHash('sha256').update(text, 'latin1').digest('hex');
