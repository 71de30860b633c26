import { serveScanRequest } from './scan-process.js';

/** The forked scan process's entry module (scan-run.ts forks this file; nothing imports it). */
serveScanRequest();
