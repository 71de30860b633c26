/**
 * `npm run bench:mcp-max`: the largest scan_secrets call there is (20 documents of 1 MiB, every line
 * `api_token = "<random>"`, so every line is a finding), sent to the real service process on loopback
 * while `/livez` is asked every 20 ms. Prints the longest /livez answer during the call (contract 5:
 * within 100 ms), the call's time, the answer's size and findings, and the service's peak resident
 * memory (VmHWM). Issue 29 measured 14 s, 158 MiB and 1.5 GiB before the cap and the worker thread.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServiceProcess } from '../test/helpers/service-process.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A random base62 value: high entropy, no words, so generic-secret reports every one. */
function randomValue(length: number): string {
  const bytes = randomBytes(length);
  let out = '';
  for (const b of bytes) out += ALPHABET[b % ALPHABET.length];
  return out;
}

/** 1 MiB (at most) of `api_token = "<random>"` lines. */
export function findingOnEveryLine(bytes = 1024 * 1024): string {
  const lines: string[] = [];
  let size = 0;
  for (;;) {
    const line = `api_token = "${randomValue(20)}"\n`;
    if (size + line.length > bytes) break;
    lines.push(line);
    size += line.length;
  }
  return lines.join('');
}

function vmHwmMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'latin1');
  return Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) / 1024;
}

const dir = mkdtempSync(join(tmpdir(), 'svc-mcp-max-'));
const service = await startServiceProcess(
  { SVC_DATABASE_URL: `sqlite:${join(dir, 'svc.db')}`, SVC_RATE_LIMIT_API: '1000000000' },
  'free',
);
try {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name: 'scan_secrets',
      arguments: {
        documents: Array.from({ length: 20 }, (_, i) => ({
          content: findingOnEveryLine(),
          filename: `src/f${i}.ts`,
        })),
      },
    },
  });
  const headers = {
    authorization: `Bearer ${service.key}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  // Warm the process (first requests compile code) before its memory peak is read.
  for (let i = 0; i < 20; i++) await fetch(`${service.base}/livez`);
  const rssBefore = vmHwmMiB(service.pid!);

  let calling = true;
  const livez: number[] = [];
  const poller = (async () => {
    while (calling) {
      const started = performance.now();
      await (await fetch(`${service.base}/livez`)).text();
      livez.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  const started = performance.now();
  const response = await fetch(`${service.base}/mcp`, { method: 'POST', headers, body });
  const answer = await response.text();
  const callMs = performance.now() - started;
  calling = false;
  await poller;

  const parsed = JSON.parse(answer) as {
    result?: { structuredContent?: { findings: unknown[]; truncated?: boolean; total?: number } };
  };
  const content = parsed.result?.structuredContent;
  const sorted = [...livez].sort((a, b) => a - b);
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  console.log(`scan_secrets, 20 x 1 MiB, a finding on every line; load average ${load}`);
  console.log(
    [
      `request body            ${(body.length / 1024 / 1024).toFixed(1)} MiB`,
      `call                    ${Math.round(callMs)} ms, HTTP ${response.status}`,
      `answer                  ${(answer.length / 1024).toFixed(0)} KiB, ${content?.findings.length ?? '?'} findings, ` +
        `truncated ${content?.truncated ?? 'n/a'}, total ${content?.total ?? 'n/a'}`,
      `/livez during the call  ${livez.length} answers, p50 ${Math.round(sorted[Math.floor(sorted.length / 2)] ?? 0)} ms, ` +
        `max ${Math.round(sorted.at(-1) ?? 0)} ms   target: within 100 ms`,
      `service peak RSS        ${Math.round(vmHwmMiB(service.pid!))} MiB (${Math.round(rssBefore)} MiB before the call)`,
    ].join('\n'),
  );
} finally {
  await service.stop();
  rmSync(dir, { recursive: true, force: true });
}
