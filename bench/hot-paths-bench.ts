/**
 * `npm run bench:hot-paths`: the speed figures that used to be wall-clock assertions in unit tests
 * (a typosquat lookup, detection on 5 MB lines, reading 100 KB command lines). Unit tests state what
 * is found; how fast a given machine finds it is measured here, where a slow or busy machine gives a
 * slower figure instead of a failing test. Each figure is the median of several runs.
 */
import { parseCommandLine } from '../src/hooks/command/parse-command.js';
import { findTyposquat } from '../src/hooks/risk/typosquat.js';
import { detectSecrets } from '../src/scanner/detect/detect-line.js';

const RUNS = Number(process.env.SVC_BENCH_RUNS ?? 5);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function timeMs(run: () => void): number {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    run();
    times.push(performance.now() - t0);
  }
  return median(times);
}

const rows: [string, string][] = [];

// Typosquat: a lookup answers from an index; a scan of the ~12,000 popular names would take hundreds
// of microseconds. The unit test once held this under 0.1 ms.
{
  const names = ['lodahs', 'expres', 'my-totally-unrelated-package', 'react', '@scope/some-package-name'];
  for (const n of names) findTyposquat('npm', n); // builds the index
  const rounds = 2000;
  const ms = timeMs(() => {
    for (let i = 0; i < rounds; i++) for (const n of names) findTyposquat('npm', n);
  });
  rows.push(['typosquat lookup (npm)', `${((ms * 1000) / (rounds * names.length)).toFixed(2)} µs`]);
}

// Detection on 5 MB lines: linear in the line, however hostile (the unit tests once held each under 2 s).
const AKIA = 'AKIA' + 'SVCSYNTHETIC0001';
const chunk = 'var a=function(e,t){return e.token?e.secret:t.apiKey};x="ab12cd34ef";';
const lines: [string, string][] = [
  ['5 MB minified line', chunk.repeat(Math.ceil(5e6 / chunk.length)) + `k="${AKIA}";`],
  ['one long word', 'a'.repeat(5e6)],
  ['repeated secret word', 'token'.repeat(1e6)],
  ['repeated assignments', 'token="'.repeat(7e5)],
  ['unclosed 5 MB value', 'password="' + 'x1Y2'.repeat(125e4)],
  ['5 MB of spaces after a name', 'secret' + ' '.repeat(5e6) + '='],
  ['a 5 MB type annotation', 'password: ' + 'a'.repeat(5e6)],
  ['repeated annotations', 'token: a'.repeat(6e5)],
  ['repeated token prefixes', 'xoxb-'.repeat(1e6)],
];
for (const [name, line] of lines) {
  rows.push([`detect: ${name}`, `${timeMs(() => detectSecrets(line)).toFixed(0)} ms`]);
}

// Command lines of 100 KB (the unit tests once held each under 2-5 s).
const commands: [string, string][] = [
  ['install after 100 KB', `echo ${'x'.repeat(100_000)} && npm i lodash`],
  ['quotes', '"'.repeat(100_001)],
  ['substitutions', '${'.repeat(50_000)],
  ['package names', `npm i ${'x '.repeat(50_000)}`],
  ['assignments', `${'A=1 '.repeat(25_000)}npm i x`],
];
for (const [name, line] of commands) {
  rows.push([`parse: ${name}`, `${timeMs(() => parseCommandLine(line)).toFixed(1)} ms`]);
}

const width = Math.max(...rows.map(([name]) => name.length));
for (const [name, figure] of rows) console.log(`${name.padEnd(width)}  ${figure}`);
