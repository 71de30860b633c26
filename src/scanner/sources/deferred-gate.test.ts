import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BlobTable } from './blob-table.js';
import { DeferredGate } from './deferred-gate.js';

/**
 * Hands blobs of `sizes` to a gate with small limits, so the ring (held + largest) wraps again and
 * again. No blob is introduced by a listed commit, so each one waits, held, until it is the oldest
 * over the budget. Checks every held content is intact before and after each blob is handed on
 * (what is held then is what gating it may read), and the budget kept.
 */
function handOn(sizes: readonly number[]): void {
  const gate = new DeferredGate(new BlobTable(), { held: 10, wholeBlob: 10 });
  const sink = gate.sink();
  const held = gate['held'] as Map<number, Buffer>;
  const intact = () => {
    for (const [blob, content] of held) expect(content.every((byte) => byte === (blob % 255) + 1)).toBe(true);
  };
  sizes.forEach((size, index) => {
    sink.start(index, size);
    sink.chunk(Buffer.alloc(size, (index % 255) + 1));
    intact();
    sink.end();
    intact();
    expect([...held.values()].reduce((sum, c) => sum + c.length, 0)).toBeLessThanOrEqual(10);
  });
}

describe('DeferredGate', () => {
  it('holds contents in one ring without ever overwriting one it still holds', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 10 }), { minLength: 1, maxLength: 80 }), handOn),
      { numRuns: 2000 },
    );
  });

  it('does so over thousands of blobs, its queue of held blobs compacted again and again', () => {
    // One- to three-byte blobs (sizes from a fixed-seed generator): thousands let go oldest first.
    // Not a fast-check property: shrinking 5,000 sizes takes minutes.
    let seed = 31;
    const sizes = Array.from({ length: 5_000 }, () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return 1 + (seed % 3);
    });
    handOn(sizes);
  });
});
