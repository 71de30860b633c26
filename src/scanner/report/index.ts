import type { ScanResult } from '../types.js';
import { renderGitlab } from './gitlab.js';
import { renderJson } from './json.js';
import { renderMarkdown } from './markdown.js';
import { renderSarif } from './sarif.js';
import { renderText } from './text.js';

export {
  IGNORE_HINT,
  RULE_TITLES,
  type Sections,
  sections,
  shortCommit,
  statusLabel,
  visible,
} from './common.js';

export type ReportFormat = 'text' | 'json' | 'sarif' | 'markdown' | 'gitlab';
/** `gitlab`: GitLab's secret-detection report, for merge requests (beyond the four formats of the README). */
export const REPORT_FORMATS: readonly ReportFormat[] = ['text', 'json', 'sarif', 'markdown', 'gitlab'];

export interface ReportOptions {
  toolVersion: string;
  /** ANSI colors, text format only; default false (the caller decides, e.g. from `isTTY`). */
  color?: boolean;
}

/** A pure function of the scan result: no I/O, no clock, so the same scan always renders the same bytes. */
export function renderReport(result: ScanResult, format: ReportFormat, options: ReportOptions): string {
  switch (format) {
    case 'text':
      return renderText(result, { toolVersion: options.toolVersion, color: options.color ?? false });
    case 'json':
      return renderJson(result, options.toolVersion);
    case 'sarif':
      return renderSarif(result, options.toolVersion);
    case 'markdown':
      return renderMarkdown(result, options.toolVersion);
    case 'gitlab':
      return renderGitlab(result, options.toolVersion);
    default:
      // A format name from outside TypeScript (a CLI flag) that slipped past validation.
      throw new Error(`unknown report format: ${String(format)}`);
  }
}
