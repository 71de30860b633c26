import { parentPort } from 'node:worker_threads';
import { scanText } from '../scanner/index.js';
import type { TextScanRequest, TextScanResponse } from './text-scan-pool.js';

/**
 * The text scan's worker thread (text-scan-pool.ts starts this file; nothing imports it): scans
 * what it is sent, one request at a time, and answers with the capped result. An error is answered
 * by its name only: a message could quote a document.
 */
parentPort?.on('message', (request: TextScanRequest) => {
  let response: TextScanResponse;
  try {
    response = {
      id: request.id,
      result: scanText(request.documents, { maxFindings: request.maxFindings }),
    };
  } catch (e) {
    response = { id: request.id, error: e instanceof Error ? e.name : 'Error' };
  }
  parentPort?.postMessage(response);
});
