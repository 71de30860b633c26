import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildEdgeHistory } from '../../../test/helpers/edge-history.js';
import { TestRepo } from '../../../test/helpers/git-repo.js';
import { renderReport } from '../report/index.js';
import { scanRepository } from '../scan.js';
import { PathOrderedRequests } from './request-order.js';

// The scan sends its requests in batches of thousands; here every few requests make a batch, so
// small histories are read across many batches, each in its own path order.
vi.mock('./request-order.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('./request-order.js')>();
  class SmallBatches extends original.PathOrderedRequests {
    override get held(): number {
      return super.held >= 3 ? Number.MAX_SAFE_INTEGER : 0;
    }
  }
  return { ...original, PathOrderedRequests: SmallBatches };
});

describe('PathOrderedRequests', () => {
  it('sends each path’s requests together, in the order they were made', () => {
    const sent: [string, number][] = [];
    const requests = new PathOrderedRequests({ request: (id, index) => sent.push([id, index]) });
    requests.atPath('b.js');
    requests.request('b1', 0);
    requests.atPath('a.js');
    requests.request('a1', 1);
    requests.atPath('b.js');
    requests.request('b2', 2);
    requests.atPath('a.js');
    requests.request('a2', 3);
    requests.request('a3', 4);
    expect(sent).toEqual([]);
    requests.flush();
    expect(sent).toEqual([
      ['b1', 0],
      ['b2', 2],
      ['a1', 1],
      ['a2', 3],
      ['a3', 4],
    ]);
    requests.flush();
    expect(sent).toHaveLength(5);
  });
});

describe('blob-first reading in many small batches', () => {
  let repo: TestRepo;
  beforeAll(() => {
    repo = new TestRepo();
    buildEdgeHistory(repo);
  });
  afterAll(() => repo.cleanup());

  it('gives the diff path report, byte for byte', async () => {
    const report = (method: 'blob-first' | 'diff') =>
      scanRepository({ path: repo.dir, method }).then((r) =>
        renderReport(r, 'json', { toolVersion: 'test' }),
      );
    const [blobFirst, diff] = [await report('blob-first'), await report('diff')];
    expect(blobFirst).toBe(diff);
    expect(JSON.parse(diff).findings.length).toBeGreaterThan(0);
  });
});
