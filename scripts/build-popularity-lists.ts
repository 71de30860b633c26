/**
 * Builds the popularity lists the typosquat rule ships with (src/hooks/ecosystems/npm/popular.json
 * and pypi/popular.json) from the package listings of the build machine:
 *
 *   npx tsx scripts/build-popularity-lists.ts [--npm PATH] [--pypi PATH] [--out DIR]
 *                                             [--npm-top N] [--pypi-top N]
 *
 * npm: a TSV with a header naming the columns `name` and `downloads_a_month`, one row per package;
 * ranked by monthly downloads (ties by name), the first N kept.
 * PyPI: a TSV with a header naming `name` and `rank_among_15000_most_downloaded`; the ranked rows,
 * names in their PEP 503 normal form, ordered by rank (ties by name), the first N kept.
 *
 * The output is deterministic (same input, same bytes): no dates, names one per line. The lists of
 * the other ecosystems (cargo, go, nuget) are curated by hand and not touched here.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const DEFAULT_NPM_TSV = '/work/.library/env/packages/npm.tsv';
export const DEFAULT_PYPI_TSV = '/work/.library/env/packages/pypi.tsv';
/** The ecosystems' folder: each list is written as `<ecosystem>/popular.json` in it. */
export const DEFAULT_OUT_DIR = fileURLToPath(new URL('../src/hooks/ecosystems/', import.meta.url));

/**
 * Cut-offs, chosen by measurement on the 2026-11 listings (docs/popularity-lists.md): npm's
 * top 12,000 (at least ~1.85 million downloads a month, 97% of all downloads) hold 228 of a sample of
 * 237 packages people and agents install directly, in ~250 KB; 15,000 would add 5 of them for 65 KB
 * more and 14% more look-alikes flagged. PyPI's top 10,000 hold 170 of a sample of 171; the 5,000
 * more of the listing add one and 25% more look-alikes flagged among the other PyPI projects.
 */
export const NPM_TOP = 12_000;
export const PYPI_TOP = 10_000;

/** The shape of a shipped list (each ecosystem's descriptor holds its own, for the typosquat rule). */
export interface PopularityList {
  about: string;
  source: string;
  count: number;
  /** Most popular first. */
  names: string[];
}

/** PEP 503: lower case, every run of `-`, `_`, `.` as one `-`. */
export function pep503(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, '-');
}

interface Row {
  name: string;
  /** Lower sorts first. */
  order: number;
}

/** Splits a TSV into its header's column indexes and its rows; throws when a column is missing. */
function readTsv(text: string, columns: string[], what: string): { index: number[]; rows: string[][] } {
  const lines = text.split('\n');
  const header = (lines[0] ?? '').replace(/\r$/, '').split('\t');
  const index = columns.map((c) => {
    const i = header.indexOf(c);
    if (i < 0) throw new Error(`${what}: no column "${c}" in the header (${header.join(', ')})`);
    return i;
  });
  const rows: string[][] = [];
  for (let i = 1; i < lines.length; i++) {
    const line = (lines[i] as string).replace(/\r$/, '');
    if (line !== '') rows.push(line.split('\t'));
  }
  return { index, rows };
}

/** Most popular first; ties by name (code unit order), each name once (its best row). */
function rank(rows: Row[], top: number): string[] {
  rows.sort((a, b) => a.order - b.order || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const seen = new Set<string>();
  const names: string[] = [];
  for (const r of rows) {
    if (names.length >= top) break;
    if (seen.has(r.name)) continue;
    seen.add(r.name);
    names.push(r.name);
  }
  return names;
}

/** npm: the `top` names with the most monthly downloads. Also returns the downloads at the cut-off. */
export function rankNpm(tsv: string, top: number): { names: string[]; rows: number; minDownloads: number } {
  const { index, rows } = readTsv(tsv, ['name', 'downloads_a_month'], 'npm listing');
  const [ni, di] = index as [number, number];
  const parsed: Row[] = [];
  const downloads = new Map<string, number>();
  for (const cols of rows) {
    const name = (cols[ni] ?? '').trim();
    const n = Number(cols[di]);
    if (name === '' || !Number.isFinite(n) || n < 0) continue;
    parsed.push({ name, order: -n });
    downloads.set(name, Math.max(n, downloads.get(name) ?? 0));
  }
  const names = rank(parsed, top);
  const last = names[names.length - 1];
  return { names, rows: parsed.length, minDownloads: last === undefined ? 0 : (downloads.get(last) ?? 0) };
}

/** PyPI: the ranked projects, PEP 503 names, best rank first. */
export function rankPypi(tsv: string, top: number): { names: string[]; rows: number } {
  const { index, rows } = readTsv(tsv, ['name', 'rank_among_15000_most_downloaded'], 'PyPI listing');
  const [ni, ri] = index as [number, number];
  const parsed: Row[] = [];
  for (const cols of rows) {
    const name = (cols[ni] ?? '').trim();
    const r = (cols[ri] ?? '').trim();
    if (name === '' || r === '') continue;
    const n = Number(r);
    if (!Number.isInteger(n) || n < 1) continue;
    parsed.push({ name: pep503(name), order: n });
  }
  return { names: rank(parsed, top), rows: parsed.length };
}

/** The JSON text of a list: header fields first, then the names one per line (small diffs). */
export function formatList(list: PopularityList): string {
  const head = [
    `  "about": ${JSON.stringify(list.about)}`,
    `  "source": ${JSON.stringify(list.source)}`,
    `  "count": ${list.count}`,
  ];
  const names = list.names.map((n) => JSON.stringify(n)).join(',\n');
  return `{\n${head.join(',\n')},\n  "names": [\n${names}\n  ]\n}\n`;
}

export interface BuildOptions {
  npm: string;
  pypi: string;
  out: string;
  npmTop: number;
  pypiTop: number;
}

export interface BuildResult {
  npm: { file: string; count: number; bytes: number; minDownloads: number };
  pypi: { file: string; count: number; bytes: number };
}

export function build(opts: BuildOptions): BuildResult {
  const npm = rankNpm(readFileSync(opts.npm, 'utf8'), opts.npmTop);
  const npmText = formatList({
    about:
      'The most downloaded npm packages, most first: generated by scripts/build-popularity-lists.ts ' +
      '(do not edit by hand); read by src/hooks/risk/typosquat.ts.',
    source:
      `${basename(opts.npm)}: ${npm.rows} packages ranked by downloads a month (ties by name), ` +
      `top ${opts.npmTop} kept (the last has ${npm.minDownloads} downloads a month)`,
    count: npm.names.length,
    names: npm.names,
  });
  const pypi = rankPypi(readFileSync(opts.pypi, 'utf8'), opts.pypiTop);
  const pypiText = formatList({
    about:
      'The most downloaded PyPI projects (PEP 503 names), most first: generated by ' +
      'scripts/build-popularity-lists.ts (do not edit by hand); read by src/hooks/risk/typosquat.ts.',
    source:
      `${basename(opts.pypi)}: ${pypi.rows} ranked projects ordered by download rank (ties by name), ` +
      `top ${opts.pypiTop} kept`,
    count: pypi.names.length,
    names: pypi.names,
  });
  const npmFile = join(opts.out, 'npm', 'popular.json');
  const pypiFile = join(opts.out, 'pypi', 'popular.json');
  const files: [string, string][] = [
    [npmFile, npmText],
    [pypiFile, pypiText],
  ];
  for (const [file, text] of files) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  return {
    npm: {
      file: npmFile,
      count: npm.names.length,
      bytes: Buffer.byteLength(npmText),
      minDownloads: npm.minDownloads,
    },
    pypi: { file: pypiFile, count: pypi.names.length, bytes: Buffer.byteLength(pypiText) },
  };
}

export function parseArgs(argv: string[]): BuildOptions {
  const opts: BuildOptions = {
    npm: DEFAULT_NPM_TSV,
    pypi: DEFAULT_PYPI_TSV,
    out: DEFAULT_OUT_DIR,
    npmTop: NPM_TOP,
    pypiTop: PYPI_TOP,
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = argv[i + 1];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    i++;
    switch (flag) {
      case '--npm':
        opts.npm = value;
        break;
      case '--pypi':
        opts.pypi = value;
        break;
      case '--out':
        opts.out = value;
        break;
      case '--npm-top':
      case '--pypi-top': {
        const n = Number(value);
        if (!Number.isInteger(n) || n < 1) throw new Error(`${flag}: not a positive integer: ${value}`);
        if (flag === '--npm-top') opts.npmTop = n;
        else opts.pypiTop = n;
        break;
      }
      default:
        throw new Error(`unknown option ${flag}`);
    }
  }
  return opts;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    const r = build(parseArgs(process.argv.slice(2)));
    console.log(
      `${r.npm.file}: ${r.npm.count} names, ${r.npm.bytes} bytes (cut-off ${r.npm.minDownloads}/month)`,
    );
    console.log(`${r.pypi.file}: ${r.pypi.count} names, ${r.pypi.bytes} bytes`);
  } catch (err) {
    console.error(`build-popularity-lists: ${(err as Error).message}`);
    process.exitCode = 2;
  }
}
