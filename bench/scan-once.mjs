// Scans one repository with the built library and a given number of git processes: lets the bench
// show what splitting the history across cores buys, without a public flag for it.
import { scanRepository } from '../dist/scanner/index.js';

const [path, parallelism] = process.argv.slice(2);
const result = await scanRepository({ path, parallelism: Number(parallelism) });
process.stdout.write(`${JSON.stringify(result.summary)}\n`);
