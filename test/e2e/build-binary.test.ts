import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

it('refuses to build on a base binary whose SHA-256 is not the pinned one', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-pin-'));
  try {
    const pin = JSON.parse(readFileSync(join(ROOT, 'build', 'node-base.json'), 'utf8'));
    const wrong = join(dir, 'node-base.json');
    writeFileSync(wrong, JSON.stringify({ ...pin, sha256: '0'.repeat(64) }));
    const r = spawnSync(process.execPath, [join(ROOT, 'build', 'build-binary.mjs')], {
      env: { ...process.env, SVC_NODE_BASE: wrong },
      encoding: 'utf8',
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/has SHA-256 [0-9a-f]{64}, expected 0{64}.*refusing to build/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
