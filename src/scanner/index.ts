/** The scanner library: the one entry point the CLI, the service and the single executable call. */
export { ScanError } from './errors.js';
export { fingerprintOf } from './fingerprint.js';
export { parseIgnoreFile } from './ignore.js';
export { ignoreLineOf } from './ignore-line.js';
export { classifyPath } from './location.js';
export { type PushScan, parseRefUpdates, type RefUpdate, scanPush } from './pre-receive.js';
export {
  IGNORE_HINT,
  REPORT_FORMATS,
  type ReportFormat,
  RULE_TITLES,
  renderReport,
  type Sections,
  sections,
  shortCommit,
  statusLabel,
  visible,
} from './report/index.js';
export { FINDING_HELP, RULES, type Rule, ruleById } from './rules/index.js';
export { type ScanOptions, scanRepository } from './scan.js';
export { type StagedScanOptions, scanStaged } from './scan-staged.js';
export {
  locationOfFilename,
  maskSecrets,
  scanText,
  type TextDocument,
  type TextFinding,
  type TextScanResult,
} from './scan-text.js';
export { secretOf } from './secrets.js';
export { keepAllocatorCompact } from './sources/free-memory.js';
export { type CommitRange, rangeRevisions } from './sources/history.js';
export { isFailing, summarize } from './summary.js';
export * from './types.js';
