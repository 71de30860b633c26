import { scanText, type TextDocument, type TextScanResult } from '../scanner/index.js';
import { invalidInput } from './errors.js';

/** What one request may hand in: enough for a change set, bounded so one call stays well under 2 s. */
export const TEXT_SCAN_LIMITS = { documents: 20, documentBytes: 1024 * 1024 } as const;

/**
 * Scans text an agent is about to write or commit, with the repository scanner's rules, masking and
 * location classes. Nothing is verified (no credential check is ever made from here), stored or
 * logged: the result carries masked values only.
 */
export function scanDocuments(documents: readonly TextDocument[]): TextScanResult {
  if (documents.length > TEXT_SCAN_LIMITS.documents) {
    throw invalidInput(`at most ${TEXT_SCAN_LIMITS.documents} documents per call, not ${documents.length}`);
  }
  documents.forEach((doc, i) => {
    // Counted in UTF-8 bytes, as sent: a character limit would let 4 MiB of non-ASCII text through.
    const bytes = Buffer.byteLength(doc.content, 'utf8');
    if (bytes > TEXT_SCAN_LIMITS.documentBytes) {
      throw invalidInput(`document ${i} is ${bytes} bytes; at most 1 MiB (1048576 bytes) per document`);
    }
  });
  return scanText(documents);
}
