import { type Finding, type ScanSummary, sections } from '../scanner/index.js';
import type { ScanRecord, ScanRepository, ScanViewer } from '../storage/index.js';
import { DomainError, invalidInput, notFound } from './errors.js';
import type { ScanQueue } from './scan-queue.js';
import { parseScanUrl } from './scan-url.js';
import type { Principal } from './vocabulary.js';

/** The most scans a list shows (newest first). */
export const SCAN_LIST_LIMIT = 50;

/** Dashboard scans of public repositories (contract section 7), for every entry point. */
export interface ScanService {
  /** Checks the URL and queues the scan; invalid-input with the reason otherwise. */
  start(principal: Principal, body: unknown): Promise<ScanRecord>;
  /** The scan, if the principal may see it (their own or their team's); not-found otherwise. */
  get(principal: Principal, id: string): Promise<ScanRecord>;
  /**
   * Cancels a queued or running scan the principal may see (its worker stops at its next write, and
   * removes its clone); not-found for anyone else's, conflict once it has ended.
   */
  cancel(principal: Principal, id: string): Promise<ScanRecord>;
  /** The principal's and their team's scans, newest first, without findings. */
  list(principal: Principal): Promise<ScanRecord[]>;
  /** Where a scanned repository may be: `github.com`, or a full origin when not https. */
  readonly hosts: readonly string[];
}

export interface ScanServiceOptions {
  scans: ScanRepository;
  queue: Pick<ScanQueue, 'enqueue'>;
  /** SVC_SCAN_HOSTS as origins. */
  origins: readonly string[];
  now: () => Date;
}

export function createScanService(options: ScanServiceOptions): ScanService {
  const viewerOf = (principal: Principal): ScanViewer => ({
    userId: principal.user.id,
    teamId: principal.team?.id ?? null,
  });
  return {
    async start(principal, body) {
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        throw invalidInput('expected a JSON object: {"url": "https://HOST/OWNER/NAME"}');
      }
      const target = parseScanUrl((body as { url?: unknown }).url, options.origins);
      const scan = await options.scans.createScan({
        userId: principal.user.id,
        teamId: principal.team?.id ?? null,
        url: target.url,
        at: options.now(),
      });
      await options.queue.enqueue(scan.id);
      return scan;
    },
    async get(principal, id) {
      const scan = await options.scans.findScan(id, viewerOf(principal));
      if (scan === null) throw notFound('scan not found');
      return scan;
    },
    async cancel(principal, id) {
      const viewer = viewerOf(principal);
      if (!(await options.scans.cancelScan(id, viewer, options.now()))) {
        const scan = await options.scans.findScan(id, viewer);
        if (scan === null) throw notFound('scan not found');
        throw new DomainError(
          'conflict',
          `the scan has ended (${scan.status}); only a queued or running scan can be canceled`,
        );
      }
      return (await options.scans.findScan(id, viewer)) as ScanRecord;
    },
    list: (principal) => options.scans.listScans(viewerOf(principal), SCAN_LIST_LIMIT),
    hosts: options.origins.map((origin) => origin.replace(/^https:\/\//, '')),
  };
}

/**
 * A finished scan's findings grouped as the markdown report groups them: the failing ones (in code,
 * not ignored) first, then the rest (ignored, or in tests, examples and docs), each in report order.
 * The stored findings are the JSON report's, written by this service's own scan process.
 */
export function findingGroupsOf(scan: ScanRecord): { failing: Finding[]; rest: Finding[] } {
  const { failing, ignoredCode, other } = sections((scan.findings ?? []) as Finding[]);
  return { failing, rest: [...ignoredCode, ...other] };
}

/** A finished scan's summary (the JSON report's), or null before it is done. */
export function summaryOf(scan: Pick<ScanRecord, 'summary'>): ScanSummary | null {
  return (scan.summary ?? null) as ScanSummary | null;
}
