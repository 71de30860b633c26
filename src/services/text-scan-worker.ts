import { parentPort } from 'node:worker_threads';
import type { TextDocument } from '../scanner/index.js';
import { scanText } from '../scanner/index.js';
import type { TextScanMessage, TextScanResponse } from './text-scan-pool.js';

/**
 * The text scan's worker thread (text-scan-pool.ts starts this file; nothing imports it): collects
 * a request's documents as they come, scans them when told, one request at a time, and answers with
 * the capped result. An error is answered by its name only: a message could quote a document.
 *
 * It runs at the process's priority: at the repository scans' niceness 19 it starved on a busy
 * machine (a maximal call took minutes), and an agent waits for this answer.
 */
let collecting: { id: number; documents: TextDocument[] } | null = null;
parentPort?.on('message', (message: TextScanMessage) => {
  if (collecting?.id !== message.id) collecting = { id: message.id, documents: [] };
  if ('document' in message) {
    collecting.documents.push(message.document);
    return;
  }
  const { documents } = collecting;
  collecting = null;
  let response: TextScanResponse;
  try {
    response = { id: message.id, result: scanText(documents, { maxFindings: message.scan.maxFindings }) };
  } catch (e) {
    response = { id: message.id, error: e instanceof Error ? e.name : 'Error' };
  }
  parentPort?.postMessage(response);
});
