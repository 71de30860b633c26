import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { terminalProgress } from './progress.js';

function stream(isTTY: boolean) {
  const chunks: string[] = [];
  const s = new Writable({
    write(chunk, _enc, done) {
      chunks.push(String(chunk));
      done();
    },
  }) as Writable & { isTTY?: boolean };
  s.isTTY = isTTY;
  return { s, chunks };
}

describe('terminalProgress', () => {
  it('writes commits done / total and a rate to a terminal, then clears the line', () => {
    const { s, chunks } = stream(true);
    const p = terminalProgress(s);
    p.update(0, 10);
    p.update(10, 10);
    p.done();
    expect(chunks.join('')).toMatch(/scanning: 10\/10 commits \(\d+ commits\/s\)/);
    expect(chunks.at(-1)).toBe('\r\x1b[2K');
  });

  it('writes nothing when stderr is not a terminal', () => {
    const { s, chunks } = stream(false);
    const p = terminalProgress(s);
    p.update(5, 10);
    p.done();
    expect(chunks).toEqual([]);
  });
});
