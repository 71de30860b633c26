import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { emptyResult, fullResult, passingResult, TOOL_VERSION } from '../../../test/helpers/scan-results.js';
import type { ScanResult } from '../types.js';
import { type ReportFormat, renderReport } from './index.js';

const GOLDEN_DIR = new URL('../../../test/fixtures/golden/', import.meta.url);
const EXTENSIONS: Record<ReportFormat, string> = {
  text: 'txt',
  markdown: 'md',
  json: 'json',
  sarif: 'sarif',
  gitlab: 'gitlab.json',
};
const FIXTURES: Array<[string, () => ScanResult]> = [
  ['report', fullResult],
  ['report-pass', passingResult],
  ['report-empty', emptyResult],
];

// UPDATE_GOLDEN=1 rewrites the files instead of comparing; review the diff before committing it.
const update = process.env.UPDATE_GOLDEN === '1';

describe('report goldens', () => {
  for (const [name, build] of FIXTURES) {
    for (const format of Object.keys(EXTENSIONS) as ReportFormat[]) {
      const file = `${name}.${EXTENSIONS[format]}`;
      it(`${file} matches byte for byte`, () => {
        const actual = renderReport(build(), format, { toolVersion: TOOL_VERSION });
        const url = new URL(file, GOLDEN_DIR);
        if (update) writeFileSync(url, actual);
        expect(actual).toBe(readFileSync(url, 'utf8'));
      });
    }
  }
});
