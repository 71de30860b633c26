import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { TextDocument, TextScanResult } from '../scanner/index.js';
import { unavailable } from './errors.js';

/**
 * What the thread is sent: each document of a request in a message of its own, then the scan. One
 * structured clone of 20 MiB of text held the event loop for about 60 ms; one of 1 MiB, a few.
 */
export type TextScanMessage =
  | { id: number; document: TextDocument }
  | { id: number; scan: { maxFindings: number } };

interface TextScanRequest {
  id: number;
  documents: readonly TextDocument[];
  maxFindings: number;
}

export type TextScanResponse = { id: number; result: TextScanResult } | { id: number; error: string };

export interface TextScanPool {
  scan(documents: readonly TextDocument[], maxFindings: number): Promise<TextScanResult>;
  /** Ends the thread (a pool used again starts a new one). */
  close(): Promise<void>;
}

interface Pending {
  request: TextScanRequest;
  resolve: (result: TextScanResult) => void;
  reject: (error: Error) => void;
}

/**
 * One worker thread for large text scans, off the event loop: a maximal scan_secrets call (20 MiB,
 * a finding on every line) held the loop for seconds, and /livez and the hooks with it (issue 29).
 * Requests run one at a time, in order; at most `maxWaiting` wait (each holds its documents), and
 * past that a call is refused as unavailable (retry) rather than queued without bound. The thread
 * starts on first use and does not keep the process alive; if it dies, what it held fails and the
 * next call starts a new one.
 */
export function createTextScanPool(options: { maxWaiting: number }): TextScanPool {
  let worker: Worker | null = null;
  let running: Pending | null = null;
  const waiting: Pending[] = [];
  let nextId = 1;

  const start = (): Worker => {
    const w = startWorker();
    w.unref();
    w.on('message', (response: TextScanResponse) => {
      const done = running;
      running = null;
      if (done !== null && done.request.id === response.id) {
        if ('result' in response) done.resolve(response.result);
        else done.reject(new Error(`text scan failed: ${response.error}`));
      }
      next();
    });
    const fail = (why: string) => {
      if (worker !== w) return;
      worker = null;
      const lost = running;
      running = null;
      lost?.reject(new Error(`text scan worker ${why}`));
      next();
    };
    w.on('error', (e) => fail(`failed: ${e.name}`));
    w.on('exit', (code) => fail(`exited (${code})`));
    return w;
  };

  const next = () => {
    if (running !== null) return;
    const job = waiting.shift();
    if (job === undefined) return;
    running = job;
    void send(job);
  };

  /** Hands a job to the thread a document at a time, other work getting its turn in between. */
  const send = async (job: Pending) => {
    const { id, documents, maxFindings } = job.request;
    for (const document of documents) {
      if (running !== job) return; // the thread died meanwhile: the job has failed already
      worker ??= start();
      worker.postMessage({ id, document } satisfies TextScanMessage);
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (running !== job) return;
    worker ??= start();
    worker.postMessage({ id, scan: { maxFindings } } satisfies TextScanMessage);
  };

  return {
    scan(documents, maxFindings) {
      if (waiting.length >= options.maxWaiting) {
        return Promise.reject(unavailable('the text scanner is busy; retry in a few seconds'));
      }
      return new Promise((resolve, reject) => {
        waiting.push({ request: { id: nextId++, documents, maxFindings }, resolve, reject });
        next();
      });
    },
    async close() {
      const w = worker;
      worker = null;
      await w?.terminate();
    },
  };
}

/**
 * The built service starts text-scan-worker.js beside this file. Run from sources (tests, tsx), the
 * TypeScript file, with tsx's loader registered in the thread first: on Node 20 a worker does not
 * take `--import` loaders from its execArgv.
 */
function startWorker(): Worker {
  const here = fileURLToPath(import.meta.url);
  if (!here.endsWith('.ts')) return new Worker(join(dirname(here), 'text-scan-worker.js'));
  // require.resolve finds tsx's CommonJS build; its ES module build (the one that registers the
  // loader for import()) is beside it.
  const api = createRequire(import.meta.url)
    .resolve('tsx/esm/api')
    .replace(/\.cjs$/, '.mjs');
  const tsx = pathToFileURL(api).href;
  const entry = pathToFileURL(join(dirname(here), 'text-scan-worker.ts')).href;
  return new Worker(
    `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); });`,
    { eval: true },
  );
}
