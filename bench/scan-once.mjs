// Scans one repository with the built library and a given reading method ('blob-first' or 'diff'):
// lets the bench show the diff path (the scanner before issue 10) beside the default, without a
// public flag for it.
import { scanRepository } from '../dist/scanner/index.js';

const [path, method] = process.argv.slice(2);
const result = await scanRepository({ path, method });
process.stdout.write(`${JSON.stringify(result.summary)}\n`);
