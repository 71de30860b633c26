import { detectSecrets } from './detect/detect-line.js';
import { PREFILTER } from './detect/prefilter.js';
import { classifyPath } from './location.js';
import type { Location, RuleId } from './types.js';

/** Text that is not (yet) in a repository: what an agent is about to write or commit. */
export interface TextDocument {
  content: string;
  /** The path it will have; it decides the location class. */
  filename?: string | undefined;
}

/** A secret found in a document: where, and its masked value only (never the secret itself). */
export interface TextFinding {
  ruleId: RuleId;
  /** Index of the document in the request, so unnamed documents can be told apart. */
  document: number;
  filename: string | null;
  /** 1-based. */
  line: number;
  location: Location;
  maskedValue: string;
}

export interface TextScanResult {
  /** The first `maxFindings` findings, in document and line order. */
  findings: TextFinding[];
  /** False when any finding is located in code: the same rule as a repository scan. */
  passed: boolean;
  /** Every finding there is, kept or not. */
  total: number;
  /** Whether findings past `maxFindings` were counted but left out. */
  truncated: boolean;
}

export interface ScanTextOptions {
  /**
   * Findings kept at most; the rest are counted only. Unbounded text can hold a finding on every line
   * (20 MiB of them made 600,000 findings and a 158 MiB answer: issue 29).
   */
  maxFindings?: number;
}

/**
 * A document without a filename is classed as code: nothing says it is a test, an example or docs,
 * and a secret about to be written anywhere unknown should fail rather than pass.
 */
export function locationOfFilename(filename: string | undefined): Location {
  return filename === undefined || filename === '' ? 'code' : classifyPath(filename.replaceAll('\\', '/'));
}

/**
 * Scans in-memory documents with the same rules as a repository scan (one finding per rule and line,
 * the same masking and location classes). Only lines holding a prefilter keyword are split out and
 * run through the rules, so a large document without keywords costs one regex pass.
 */
export function scanText(documents: readonly TextDocument[], options: ScanTextOptions = {}): TextScanResult {
  const max = options.maxFindings ?? Number.POSITIVE_INFINITY;
  const findings: TextFinding[] = [];
  let total = 0;
  let inCode = false;
  documents.forEach((doc, index) => {
    const location = locationOfFilename(doc.filename);
    const filename = doc.filename ?? null;
    for (const { line, text } of candidateLines(doc.content)) {
      const seen = new Set<RuleId>();
      for (const match of detectSecrets(text)) {
        if (seen.has(match.ruleId)) continue;
        seen.add(match.ruleId);
        total++;
        if (location === 'code') inCode = true;
        if (findings.length >= max) continue;
        findings.push({
          ruleId: match.ruleId,
          document: index,
          filename,
          line,
          location,
          maskedValue: match.maskedValue,
        });
      }
    }
  });
  return { findings, passed: !inCode, total, truncated: total > findings.length };
}

/** The lines holding a prefilter keyword, each once, with its 1-based number (no line ending). */
function* candidateLines(content: string): Generator<{ line: number; text: string }> {
  const re = new RegExp(PREFILTER.source, PREFILTER.flags);
  let line = 1;
  let counted = 0; // newlines before this offset are counted in `line`
  for (let m = re.exec(content); m !== null; m = re.exec(content)) {
    const start = content.lastIndexOf('\n', m.index) + 1;
    let end = content.indexOf('\n', m.index);
    if (end === -1) end = content.length;
    for (let i = content.indexOf('\n', counted); i !== -1 && i < start; i = content.indexOf('\n', i + 1)) {
      line++;
    }
    counted = start;
    const text =
      content.charCodeAt(end - 1) === 13 ? content.slice(start, end - 1) : content.slice(start, end);
    yield { line, text };
    re.lastIndex = end; // the rest of this line is the rules' job, not the prefilter's
  }
}

/**
 * The text with every secret the rules find in it replaced by its masked value, as reports show it:
 * for one line of text that is about to be written somewhere (a log line) and may hold whatever a
 * client put there, such as a token pasted into a URL.
 */
export function maskSecrets(text: string): string {
  let masked = '';
  let at = 0;
  for (const match of detectSecrets(text)) {
    if (match.start < at) continue; // already inside a masked secret
    masked += text.slice(at, match.start) + match.maskedValue;
    at = match.end;
  }
  return at === 0 ? text : masked + text.slice(at);
}
