import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  fakeChatToken,
  fakeCloudKeyId,
  fakeCodehostToken,
  fakeGenericValue,
  fakePaymentKey,
  fakeWebApiKey,
  PRIVATE_KEY_BLOCK,
} from './fake-secrets.js';
import type { TestRepo } from './git-repo.js';

/** `n` lines of ordinary code that trip the prefilter now and then (`tokenizer`), never a rule. */
export function codeLines(n: number, tag: string): string[] {
  return Array.from({ length: n }, (_, i) =>
    i % 7 === 3
      ? `  const tokenizer${i} = makeTokenizer('${tag}-${i}');`
      : `  value${i} = compute(${i}, '${tag}');`,
  );
}
const text = (lines: string[]) => `${lines.join('\n')}\n`;

/**
 * A history with every case that makes reading blobs instead of diffs hard: small edits to long
 * files far from and next to a secret, a secret moved within its file, duplicated blocks (git's diff
 * may slide them), renames with and without edits, a clean merge that brings a branch's secret, a
 * merge with a conflict resolution and an "evil" line, an octopus merge, a revert that brings back
 * an old blob, binary files, CRLF endings, a line over 1 MiB, a symlink, a submodule entry, paths
 * with spaces and Unicode, tags and an orphan branch. Returns the secrets it planted.
 */
export function buildEdgeHistory(r: TestRepo): string[] {
  const secrets: string[] = [];
  const plant = (s: string) => {
    secrets.push(s);
    return s;
  };
  const long = codeLines(400, 'long');
  r.commitFiles({
    'src/long.js': text(long),
    'src/other.js': text(codeLines(50, 'other')),
    'assets/logo.bin': Buffer.concat([
      Buffer.from([0, 1, 2, 0]),
      Buffer.from(`key=${plant(fakeCloudKeyId(31))}\n`),
    ]),
    'dir with space/ünïcode.env': `A=1\r\nSLACK=${plant(fakeChatToken(32))}\r\nB=2\r\n`,
  });
  // A secret in the middle of a long file, then edits far from it and right next to it.
  long.splice(200, 0, `  const gh = '${plant(fakeCodehostToken(33))}';`);
  r.commitFiles({ 'src/long.js': text(long) });
  long[10] = '  value10 = compute(10, "edited far above");';
  long[390] = '  value390 = compute(390, "edited far below");';
  r.commitFiles({ 'src/long.js': text(long) });
  long.splice(201, 0, '  value_next = compute(0, "next to the secret");');
  r.commitFiles({ 'src/long.js': text(long) });
  // Move the secret line within the file: git shows it deleted and added again.
  const [moved] = long.splice(200, 1);
  long.push(moved!);
  r.commitFiles({ 'src/long.js': text(long) });
  // A duplicated block holding a secret: where git puts the added copy is git's choice.
  const block = ['  begin();', `  password = "${plant(fakeGenericValue(34))}";`, '  end();'];
  r.commitFiles({ 'src/dup.py': text(block) });
  r.commitFiles({ 'src/dup.py': text([...block, ...block]) });
  // Renames: one untouched, one with a new secret line.
  mkdirSync(join(r.dir, 'lib'));
  r.git('mv', 'src/other.js', 'lib/other.js');
  r.commit('rename');
  const other = codeLines(50, 'other');
  other.splice(25, 0, `stripe = '${plant(fakePaymentKey(35))}'`);
  r.git('mv', 'lib/other.js', 'lib/renamed.js');
  r.commitFiles({ 'lib/renamed.js': text(other) });
  // A branch with a secret merged cleanly (not reported again), and a conflict resolved with a secret.
  r.git('checkout', '-q', '-b', 'side');
  r.commitFiles({ 'side/feature.js': `maps = "${plant(fakeWebApiKey(36))}"\n`, 'conflict.txt': 'side\n' });
  r.git('checkout', '-q', 'main');
  r.commitFiles({ 'conflict.txt': 'main\n' });
  r.git('merge', '-q', '--no-commit', 'side', '--no-ff', '--strategy-option=ours');
  r.write('conflict.txt', `resolved\ntoken = "${plant(fakeGenericValue(37))}"\n`);
  r.write('src/evil.js', `evil = '${plant(fakeCodehostToken(38))}'\n`);
  r.commit('merge side with an evil line');
  // An octopus merge of two small branches.
  for (const name of ['o1', 'o2']) {
    r.git('checkout', '-q', '-b', name, 'main');
    r.commitFiles({ [`octo/${name}.txt`]: `${name}\n` });
  }
  r.git('checkout', '-q', 'main');
  r.git('merge', '-q', '--no-edit', 'o1', 'o2');
  // A revert brings back a blob seen before.
  const before = r.head();
  long.splice(5, 0, '  value_tmp = 1;');
  r.commitFiles({ 'src/long.js': text(long) });
  r.git('revert', '--no-edit', r.head());
  r.git('tag', 'reverted', before);
  // A line over 1 MiB with a secret at its end, a symlink, a private key, a submodule entry.
  r.commitFiles({
    'dist/bundle.min.js': `${'x=1;'.repeat(300_000)}k="${plant(fakeCodehostToken(39))}"\n`,
    'keys/id_rsa': `${PRIVATE_KEY_BLOCK}\n`,
  });
  execFileSync('ln', ['-s', `target-${fakeCloudKeyId(40)}`, join(r.dir, 'link')]);
  secrets.push(fakeCloudKeyId(40));
  r.commit('symlink');
  // A symlink whose target shares its first line with the file that replaces it: git shows the
  // file as new (every line added), not as an edit of the link.
  const shared = `aws = "${plant(fakeCloudKeyId(43))}"`;
  execFileSync('ln', ['-s', `${shared}\nx`, join(r.dir, 'turns')]);
  r.commit('a symlink');
  rmSync(join(r.dir, 'turns'));
  r.commitFiles({ turns: `${shared}\nx\ny\n` });
  r.git('update-index', '--add', '--cacheinfo', `160000,${r.head()},vendor/sub`);
  r.git('commit', '-q', '-m', 'submodule');
  // One blob reached twice: first as an edit next to a secret already there, then on another branch
  // from a version without it, where that same blob adds the secret.
  const secretLine = `aws = "${plant(fakeCloudKeyId(42))}"`;
  r.git('checkout', '-q', '-b', 'twice-a', 'main');
  r.commitFiles({ 'twice.txt': text([secretLine, 'x']) });
  r.commitFiles({ 'twice.txt': text([secretLine, 'x', 'y']) });
  r.git('checkout', '-q', '-b', 'twice-b', 'main');
  r.commitFiles({ 'twice.txt': text(['x', 'y']) });
  r.commitFiles({ 'twice.txt': text([secretLine, 'x', 'y']) });
  r.git('checkout', '-q', 'main');
  // An orphan branch.
  r.git('checkout', '-q', '--orphan', 'pages');
  r.git('rm', '-rq', '--cached', '.');
  r.commitFiles({
    'index.html': `<meta name="api_key" content="x">\n<script>apiKey = "${plant(fakeGenericValue(41))}"</script>\n`,
  });
  r.git('checkout', '-q', '-f', 'main');
  return secrets;
}

/**
 * Makes the repository at `gitDir` (a clone of its own) lose the given objects: its packs are
 * unpacked into loose objects so single ones can be deleted, as in a damaged or partial clone.
 */
export function deleteObjects(gitDir: string, objects: string[]): void {
  const packDir = join(gitDir, 'objects', 'pack');
  for (const pack of readdirSync(packDir).filter((f) => f.endsWith('.pack'))) {
    const moved = join(gitDir, `${pack}.tmp`);
    renameSync(join(packDir, pack), moved);
    for (const f of readdirSync(packDir)) rmSync(join(packDir, f));
    execFileSync('sh', ['-c', `git -C "${gitDir}" unpack-objects -q < "${moved}"`]);
    rmSync(moved);
  }
  for (const id of objects) rmSync(join(gitDir, 'objects', id.slice(0, 2), id.slice(2)), { force: true });
}
