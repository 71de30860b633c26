import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { RecordLog } from './record-log.js';

/** Records of varied lengths, two of them longer than the log's 4 MB pieces, with known contents. */
function records(count: number): Int32Array[] {
  return Array.from({ length: count }, (_, r) => {
    const record = new Int32Array(r === 5 || r === 2000 ? 1_500_000 : (r * 7919) % 300);
    for (let k = 0; k < record.length; k++) record[k] = r * 31 + k - 50;
    return record;
  });
}

/** Each record read back, as its length and a checksum of its numbers. */
function readBack(log: RecordLog): string[] {
  const out: string[] = [];
  log.readAll((numbers, from, to) => {
    out.push(summary(numbers.subarray(from, to)));
  });
  return out;
}

function summary(record: Int32Array): string {
  let sum = 0;
  for (let k = 0; k < record.length; k++) sum = (Math.imul(sum, 31) + record[k]!) | 0;
  return `${record.length}:${sum}`;
}

const ourFiles = () => readdirSync(tmpdir()).filter((name) => name.startsWith('svc-records-'));

describe('RecordLog', () => {
  it('gives back every record in order, in memory', () => {
    const log = new RecordLog();
    const written = records(50).filter((r) => r.length < 1000);
    for (const r of written) log.append(r, r.length);
    expect(readBack(log)).toEqual(written.map(summary));
    expect(log.records).toBe(written.length);
    log.close();
  });

  it('gives back every record in order through its file, records longer than a piece too, and leaves no file', () => {
    const before = ourFiles();
    const log = new RecordLog();
    const written = records(3000);
    for (const r of written) log.append(r, r.length);
    expect(ourFiles()).toEqual(before); // unlinked as soon as open
    expect(readBack(log)).toEqual(written.map(summary));
    expect(readBack(log)).toEqual(written.map(summary)); // and again
    log.close();
  });
});
