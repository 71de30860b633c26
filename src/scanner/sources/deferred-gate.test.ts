import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BlobTable } from './blob-table.js';
import { DeferredGate } from './deferred-gate.js';

describe('DeferredGate', () => {
  it('holds contents in one ring without ever overwriting one it still holds', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 10 }), { minLength: 1, maxLength: 80 }), (sizes) => {
        // Small limits, so the ring (held + largest) wraps again and again. No blob is introduced
        // by a listed commit, so each one waits, held, until it is the oldest over the budget.
        const gate = new DeferredGate(new BlobTable(), { held: 10, wholeBlob: 10 });
        const sink = gate.sink();
        const held = gate['held'] as Map<number, Buffer>;
        const intact = () => {
          for (const [blob, content] of held) expect(content.every((byte) => byte === blob + 1)).toBe(true);
        };
        sizes.forEach((size, index) => {
          sink.start(index, size);
          sink.chunk(Buffer.alloc(size, index + 1));
          // Before the blob is handed on: what is held then is what gating it may read.
          intact();
          sink.end();
          intact();
          expect([...held.values()].reduce((sum, c) => sum + c.length, 0)).toBeLessThanOrEqual(10);
        });
      }),
      { numRuns: 2000 },
    );
  });
});
