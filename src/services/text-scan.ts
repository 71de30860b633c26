import { scanText, type TextDocument, type TextScanResult } from '../scanner/index.js';
import { invalidInput } from './errors.js';
import { createTextScanPool } from './text-scan-pool.js';

/**
 * What one request may hand in: enough for a change set. And what it gets back at most (contract 5):
 * 1,000 findings, then `truncated` and the total.
 */
export const TEXT_SCAN_LIMITS = { documents: 20, documentBytes: 1024 * 1024, findings: 1000 } as const;

/**
 * Text up to this size is scanned on the calling thread: a finding on every line of it is a few
 * milliseconds of work, less than handing it to the worker and back. Anything larger goes to the
 * worker thread, so the event loop (every other request) never waits on a large scan.
 */
export const INLINE_SCAN_BYTES = 64 * 1024;

/** Large calls waiting for the worker at most (each holds up to 20 MiB); then unavailable, retry. */
const MAX_WAITING_SCANS = 8;

const pool = createTextScanPool({ maxWaiting: MAX_WAITING_SCANS });

/**
 * Scans text an agent is about to write or commit, with the repository scanner's rules, masking and
 * location classes. Nothing is verified (no credential check is ever made from here), stored or
 * logged: the result carries masked values only, at most TEXT_SCAN_LIMITS.findings of them.
 */
export async function scanDocuments(documents: readonly TextDocument[]): Promise<TextScanResult> {
  if (documents.length > TEXT_SCAN_LIMITS.documents) {
    throw invalidInput(`at most ${TEXT_SCAN_LIMITS.documents} documents per call, not ${documents.length}`);
  }
  let total = 0;
  documents.forEach((doc, i) => {
    // Counted in UTF-8 bytes, as sent: a character limit would let 4 MiB of non-ASCII text through.
    const bytes = Buffer.byteLength(doc.content, 'utf8');
    if (bytes > TEXT_SCAN_LIMITS.documentBytes) {
      throw invalidInput(`document ${i} is ${bytes} bytes; at most 1 MiB (1048576 bytes) per document`);
    }
    total += bytes;
  });
  if (total <= INLINE_SCAN_BYTES) return scanText(documents, { maxFindings: TEXT_SCAN_LIMITS.findings });
  // Only what the scan reads crosses to the thread (a copy of each string).
  const plain = documents.map(({ content, filename }) => ({ content, filename }));
  return pool.scan(plain, TEXT_SCAN_LIMITS.findings);
}
