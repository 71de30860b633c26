/**
 * `npm run bench:binary`: the single executable beside the Node CLI, in one run: size, start time
 * (`--version`, median of 31 runs) and scan time on the `npm run bench` history (median of 3).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { median } from './measure.js';

const root = join(import.meta.dirname, '..');
const binary = join(root, 'dist', 'svc-linux-x64');
const cli = join(root, 'dist', 'cli', 'main.js');
if (!existsSync(binary)) throw new Error('run npm run build:binary first');

function time(command: string, args: string[], runs: number): number {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = process.hrtime.bigint();
    const r = spawnSync(command, args, { stdio: 'ignore' });
    if (r.status !== 0 && r.status !== 1) throw new Error(`${command} ${args.join(' ')} exited ${r.status}`);
    samples.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return median(samples);
}

const mb = (path: string) => (statSync(path).size / 1e6).toFixed(1);
const xz = existsSync(`${binary}.xz`) ? `, ${mb(`${binary}.xz`)} MB in xz as the CI scripts fetch it` : '';
console.log(`dist/svc-linux-x64: ${mb(binary)} MB (${mb(`${binary}.gz`)} MB gzipped${xz})`);
console.log(
  `${'start (--version), median of 31'.padEnd(40)} ${'executable'.padStart(12)} ${'node dist/cli'.padStart(14)}`,
);
console.log(
  `${''.padEnd(40)} ${`${time(binary, ['--version'], 31).toFixed(0)} ms`.padStart(12)} ${`${time(process.execPath, [cli, '--version'], 31).toFixed(0)} ms`.padStart(14)}`,
);
const benchDir = join(root, '.bench');
const repo = existsSync(benchDir) ? readdirSync(benchDir).find((d) => d.startsWith('history-')) : undefined;
if (repo === undefined) {
  console.log('scan: no bench history yet (npm run bench builds it)');
} else {
  const path = join(benchDir, repo);
  const commits = execFileSync('git', ['-C', path, 'rev-list', '--all', '--count'], {
    encoding: 'utf8',
  }).trim();
  const args = ['scan', path, '--no-verify', '--format', 'json'];
  console.log(
    `${`scan ${commits} commits, median of 3`.padEnd(40)} ${`${(time(binary, args, 3) / 1000).toFixed(2)} s`.padStart(12)} ${`${(time(process.execPath, [cli, ...args], 3) / 1000).toFixed(2)} s`.padStart(14)}`,
  );
}
