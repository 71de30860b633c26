import { describe, expect, it } from 'vitest';
import { executableName, unwrap } from './wrappers.js';

describe('executableName', () => {
  it.each([
    ['npm', 'npm'],
    ['/usr/bin/npm', 'npm'],
    ['C:\\nodejs\\NPM.CMD', 'npm'],
    ['npm.exe', 'npm'],
    ['pip3.11', 'pip3.11'],
    ['./node_modules/.bin/pnpm', 'pnpm'],
  ])('%s is %s', (word, name) => {
    expect(executableName(word)).toBe(name);
  });
});

describe('unwrap', () => {
  const words = (line: string) => line.split(' ');
  it.each([
    ['npm i x', 'npm i x'],
    ['A=1 B+=2 npm i x', 'npm i x'],
    ['sudo -E -u deploy npm i x', 'npm i x'],
    ['sudo -Eu deploy npm i x', 'npm i x'],
    ['sudo --user=deploy -- npm i x', 'npm i x'],
    ['sudo A=1 npm i x', 'npm i x'],
    ['doas -u root npm i x', 'npm i x'],
    ['env -i -u HOME A=1 npm i x', 'npm i x'],
    ['command -p npm i x', 'npm i x'],
    ['exec -a name npm i x', 'npm i x'],
    ['time -p npm i x', 'npm i x'],
    ['/usr/bin/time -o t.txt npm i x', 'npm i x'],
    ['nice -10 npm i x', 'npm i x'],
    ['nohup npm i x', 'npm i x'],
    ['timeout -s KILL 5m npm i x', 'npm i x'],
    ['xargs -0 -n 1 -I {} npm i x', 'npm i x'],
    ['stdbuf -oL npm i x', 'npm i x'],
    ['ionice -c 3 npm i x', 'npm i x'],
    ['corepack pnpm add x', 'pnpm add x'],
    ['then sudo env A=1 time npm i x', 'npm i x'],
    ['! npm i x', 'npm i x'],
  ])('%s runs %s', (line, command) => {
    expect(unwrap(words(line))).toEqual(words(command));
  });

  it.each([
    'command -v npm',
    'sudo -l',
    'sudo -e /etc/hosts',
    'sudo',
    'A=1 B=2',
    'timeout 5',
    'doas -C /etc/doas.conf npm',
    'ionice -p 42',
  ])('%s runs nothing', (line) => {
    expect(unwrap(words(line))).toBeNull();
  });

  it('splits env -S', () => {
    expect(unwrap(['env', '-S', 'npm i x', 'y'])).toEqual(['npm', 'i', 'x', 'y']);
  });
});
