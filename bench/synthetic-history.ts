import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Writable } from 'node:stream';

/**
 * Builds a large, realistic git history with `git fast-import`, streamed so the builder's memory stays
 * small. As in real projects, most commits make a few small edits to long files (a few lines changed
 * in a file of up to 3,000 lines: git must diff the whole file, and a blob reader must read it all),
 * and the rest add new files or large blocks; with renames, branches merged back with conflict
 * resolutions, identifiers that trip the prefilter (`tokenizer`, `api_key_name`) without being
 * secrets, and fake credentials sprinkled in.
 */
export interface SyntheticOptions {
  commits: number;
  /** Mean bytes of added lines per commit. */
  bytesPerCommit: number;
  /** One commit in this many adds a credential. */
  secretEvery: number;
  /** One commit in this many is a merge of a short side branch. */
  mergeEvery: number;
  seed?: number;
  /**
   * New files go into subdirectories of this many files each (`src/d12/file_1234.js`) instead of
   * one directory per area: files are never deleted, and at a million commits one directory would
   * hold tens of thousands of them, a tree git rewrites and diffs at every commit. Unset: the
   * layout of the bench's 24,000-commit history (its figures stay comparable).
   */
  filesPerDirectory?: number;
  /**
   * Repack after the import (default true). A million commits' `git repack -a -d -f` ran for more
   * than 20 minutes and 6.7 GB; fast-import writes a pack of its own, readable as it is (larger,
   * with fewer deltas), which is enough to measure memory on.
   */
  repack?: boolean;
}

export interface SyntheticHistory {
  commits: number;
  /** Commits that added a credential (each adds exactly one, in a `code` location). */
  secretCommits: number;
  addedBytes: number;
}

const WORDS = (
  'alpha beta gamma delta render parse value index count buffer stream request response handler ' +
  'config logger cache store queue worker result error status user order item apiVersion'
).split(' ');
/**
 * Words that wake the prefilter without being secrets. Real code trips it on about 1.75% of lines
 * (measured over this project's node_modules); at one word in 200 about 3% of lines here do.
 */
const TRIP_WORDS = ['tokenizer', 'secretary', 'password_hint_label', 'access_level', 'api_key_name'];

class Rng {
  constructor(private state: number) {}
  next(): number {
    this.state = (Math.imul(this.state, 1103515245) + 12345) >>> 0;
    return this.state >>> 8;
  }
  int(n: number): number {
    return this.next() % n;
  }
  pick<T>(list: readonly T[]): T {
    return list[this.int(list.length)]!;
  }
  word(): string {
    return this.int(200) === 0 ? this.pick(TRIP_WORDS) : this.pick(WORDS);
  }
  chars(n: number, charset: string): string {
    let s = '';
    for (let i = 0; i < n; i++) s += charset[this.int(charset.length)];
    return s;
  }
}

function codeLine(rng: Rng): string {
  const a = rng.word();
  const b = rng.word();
  switch (rng.int(4)) {
    case 0:
      return `  const ${a}${rng.int(1000)} = ${b}(${rng.int(100)}, '${rng.word()} ${rng.word()}');`;
    case 1:
      return `  if (${a}.${b} > ${rng.int(10000)}) { return ${rng.word()}.map((x) => x.${a}); }`;
    case 2:
      return `  // ${a} ${b} ${rng.word()} ${rng.word()} ${rng.word()} ${rng.word()}`;
    default:
      return `  ${a}.${b}(${JSON.stringify(`${rng.word()}-${rng.int(99999)}`)});`;
  }
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function secretLine(rng: Rng): string {
  switch (rng.int(4)) {
    case 0:
      return `AWS_ACCESS_KEY_ID=AKIA${rng.chars(16, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567')}`;
    case 1:
      return `const gh = "ghp_${rng.chars(36, ALNUM)}";`;
    case 2:
      return `stripe.key = 'sk_live_${rng.chars(30, ALNUM)}';`;
    default:
      return `db_password: "${rng.chars(24, ALNUM)}"`;
  }
}

class Writer {
  private mark = 0;
  private time = 1_600_000_000;
  constructor(private readonly out: Writable) {}
  async write(s: string): Promise<void> {
    if (!this.out.write(s)) await once(this.out, 'drain');
  }
  data(content: string): string {
    return `data ${Buffer.byteLength(content)}\n${content}\n`;
  }
  /** Emits a commit on `ref` and returns its mark. */
  async commit(ref: string, from: number | null, merge: number | null, ops: string): Promise<number> {
    this.mark++;
    this.time += 60;
    const who = `Dev ${this.mark % 7} <dev${this.mark % 7}@example.test> ${this.time} +0000`;
    await this.write(
      `commit ${ref}\nmark :${this.mark}\nauthor ${who}\ncommitter ${who}\n${this.data(`change ${this.mark}`)}` +
        (from !== null ? `from :${from}\n` : '') +
        (merge !== null ? `merge :${merge}\n` : '') +
        ops +
        '\n',
    );
    return this.mark;
  }
}

/**
 * The synthetic history in `dir`, built once: a later run finds the stamp written when the build
 * finished (`.svc-bench.json`, its figures) and reuses the repository; one without it (a build cut
 * short) is built again.
 */
export async function cachedSyntheticHistory(
  dir: string,
  options: SyntheticOptions,
): Promise<SyntheticHistory> {
  const stamp = join(dir, '.svc-bench.json');
  if (!existsSync(stamp)) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dirname(dir), { recursive: true });
    const started = Date.now();
    const built = await buildSyntheticHistory(dir, options);
    console.log(`built ${dir} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    writeFileSync(stamp, JSON.stringify(built));
  }
  return JSON.parse(readFileSync(stamp, 'utf8')) as SyntheticHistory;
}

/** Creates a repository in `dir` (which must not exist yet) holding the synthetic history. */
export async function buildSyntheticHistory(
  dir: string,
  options: SyntheticOptions,
): Promise<SyntheticHistory> {
  execFileSync('git', ['init', '-q', '--initial-branch=main', dir]);
  const child = spawn('git', ['-C', dir, '-c', 'pack.compression=1', 'fast-import', '--quiet'], {
    stdio: ['pipe', 'inherit', 'inherit'],
  });
  const w = new Writer(child.stdin);
  const rng = new Rng(options.seed ?? 42);
  const linesPerCommit = Math.max(1, Math.round(options.bytesPerCommit / 60));
  // Three commits in five make small edits (about 7 added lines); the others add enough to keep the
  // mean at linesPerCommit.
  const bigLines = Math.max(1, Math.round((linesPerCommit - 0.6 * 7) / 0.4));
  // Live files, newest last; only the newest few hundred are edited, so the builder stays small.
  const files: { path: string; lines: string[] }[] = [];
  let created = 0;
  let addedBytes = 0;
  let secretCommits = 0;
  let head: number | null = null;
  let made = 0;

  const addLines = (count: number, withSecret: boolean): string[] => {
    const lines = Array.from({ length: count }, () => codeLine(rng));
    if (withSecret) lines[rng.int(count)] = secretLine(rng);
    for (const l of lines) addedBytes += l.length + 1;
    return lines;
  };
  // Side-branch commits only edit files main already has, and only main renames, so every path an
  // operation names exists on the branch it is applied to.
  const fileOps = (withSecret: boolean, onSide = false): string => {
    let ops = '';
    const small = rng.int(5) < 3;
    const editing = files.length > 20 && (onSide || small || rng.int(2) === 0);
    if (editing) {
      const index = files.length - 1 - rng.int(Math.min(files.length, 400));
      const file = files[index]!;
      if (small) {
        // One to three spots, each replacing up to three lines with one to six new ones (a secret
        // goes in the last, so no later spot of the same commit replaces it).
        const spots = 1 + rng.int(3);
        for (let k = 0; k < spots; k++) {
          const at = rng.int(file.lines.length);
          file.lines.splice(at, rng.int(4), ...addLines(1 + rng.int(6), withSecret && k === spots - 1));
        }
      } else {
        file.lines.splice(rng.int(file.lines.length), rng.int(4), ...addLines(bigLines, withSecret));
      }
      if (file.lines.length > 3000) file.lines.splice(0, file.lines.length - 3000);
      if (!onSide && rng.int(40) === 0) {
        const to = `moved/${file.path}`;
        ops += `R ${file.path} ${to}\n`;
        file.path = to;
      }
      ops += `M 100644 inline ${file.path}\n${w.data(`${file.lines.join('\n')}\n`)}`;
    } else {
      const area = rng.pick(['src', 'lib', 'src/server', 'src/web', 'pkg/core', 'config']);
      const per = options.filesPerDirectory;
      const dir = per === undefined ? area : `${area}/d${Math.floor(created / per)}`;
      const file = { path: `${dir}/file_${created++}.js`, lines: addLines(bigLines, withSecret) };
      files.push(file);
      if (files.length > 4000) files.shift();
      ops += `M 100644 inline ${file.path}\n${w.data(`${file.lines.join('\n')}\n`)}`;
    }
    if (withSecret) secretCommits++;
    return ops;
  };

  while (made < options.commits) {
    const withSecret = made % options.secretEvery === options.secretEvery - 1;
    if (
      head !== null &&
      made % options.mergeEvery === options.mergeEvery - 1 &&
      made + 3 <= options.commits
    ) {
      // A side branch of two commits, merged back with a resolution line in a new file of its own.
      let side = await w.commit('refs/heads/side', head, null, fileOps(false, true));
      side = await w.commit('refs/heads/side', side, null, fileOps(false, true));
      head = await w.commit('refs/heads/main', head, side, fileOps(withSecret));
      made += 3;
    } else {
      head = await w.commit('refs/heads/main', head, null, fileOps(withSecret));
      made++;
    }
  }
  await w.write('done\n');
  child.stdin.end();
  const [code] = await once(child, 'close');
  if (code !== 0) throw new Error(`git fast-import exited with ${code}`);
  execFileSync('git', ['-C', dir, 'update-ref', '-d', 'refs/heads/side']);
  // fast-import deltas each blob only against the blob written just before it (another file, here),
  // so its pack stores nearly every version whole: 397 MB for 24,000 commits, where `git repack`
  // (what a host does before serving a clone) makes 85 MB of delta chains, as in real clones. Git
  // reads the two very differently (git log -p took 14.4 s on the first, 6.8 s on the second).
  if (options.repack !== false) {
    execFileSync('git', ['-C', dir, '-c', 'pack.threads=2', 'repack', '-a', '-d', '-f', '-q']);
  }
  return { commits: made, secretCommits, addedBytes };
}
