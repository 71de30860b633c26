/** A dashboard scan's states: queued -> running -> done | failed | canceled. */
export type ScanStatus = 'queued' | 'running' | 'done' | 'failed' | 'canceled';

/** Who may see a scan: the user who started it and their team. */
export interface ScanViewer {
  userId: number;
  teamId: number | null;
}

/** What a finished scan read: its commits, and the branches and tags they were reached from. */
export interface ScanScope {
  commits: number;
  branches: number;
  tags: number;
  /** The branch `.svcignore` was read from, or null. */
  defaultBranch: string | null;
  /** Some commits could not be read (missing objects). */
  incomplete: boolean;
}

export interface ScanRecord {
  id: string;
  /** Null for a GitHub application scan (it belongs to an installation; no user sees it). */
  userId: number | null;
  teamId: number | null;
  url: string;
  status: ScanStatus;
  progress: { done: number; total: number };
  error: string | null;
  /** The JSON report's summary, once done. */
  summary: unknown;
  /** What the scan covered, once done; null for scans finished before this was recorded. */
  scope: ScanScope | null;
  /** The JSON report's findings, once done; null in lists (they can be large). */
  findings: unknown[] | null;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  attempt: number;
}

/** A scan a worker holds: its lease is `owner`'s until renewed or released. */
export interface ClaimedScan {
  id: string;
  url: string;
  /** 1 on the first run, more when a worker died holding it. */
  attempt: number;
  /** A GitHub application scan's job (JSON, services/app-a reads it); null for a dashboard scan. */
  appJob: string | null;
  /** The check run an application scan reports to, once a run of it created one. */
  checkRunId: string | null;
}

/**
 * Scans, and the embedded queue they form. Every write by a worker names its `owner` and changes
 * nothing (returns false) unless that owner still holds the lease on a running scan: a worker whose
 * lease ran out and was taken over can never overwrite the new run.
 */
export interface ScanRepository {
  createScan(input: { userId: number; teamId: number | null; url: string; at: Date }): Promise<ScanRecord>;
  /**
   * A GitHub application scan asked for by webhook delivery `deliveryId`, queued; null when that
   * delivery already asked for one (a redelivery is acknowledged, not scanned twice).
   */
  createAppScan(input: { url: string; appJob: string; deliveryId: string; at: Date }): Promise<string | null>;
  /** The scan if `viewer` may see it, else null (so another user's scan is not found). */
  findScan(id: string, viewer: ScanViewer): Promise<ScanRecord | null>;
  /** The scans `viewer` may see, newest first, without findings. */
  listScans(viewer: ScanViewer, limit: number): Promise<ScanRecord[]>;
  /**
   * Atomically takes a queued scan, or a running one whose lease ended before `now`, for `owner`
   * until `now + leaseMs`; null when there is none. Two workers never get the same scan. Fair per
   * user: the oldest scan of the user served least recently (none of whose scans started, or whose
   * latest start is the earliest), so one user's many scans do not hold everyone else's back.
   */
  claimNextScan(owner: string, now: Date, leaseMs: number): Promise<ClaimedScan | null>;
  /**
   * Cancels the scan if `viewer` may see it and it has not ended: `canceled`, its lease dropped, so
   * the worker running it has its next write refused and stops. False otherwise.
   */
  cancelScan(id: string, viewer: ScanViewer, at: Date): Promise<boolean>;
  /**
   * Takes this scan for `owner` whoever held it, if it is queued or running: for a queue engine that
   * decides itself which worker runs a job (BullMQ's lock), the row's owner is then its fence, and a
   * former holder's writes are refused from here on. Null when the scan has ended (or does not exist).
   */
  claimScan(id: string, owner: string, now: Date, leaseMs: number): Promise<ClaimedScan | null>;
  /**
   * The scans a queue engine should have a job for: queued ones, and running ones whose lease ended
   * before `now` (their worker died), oldest first.
   */
  listUnheldScanIds(now: Date, limit: number): Promise<string[]>;
  /**
   * How many scans of the same user (application scans: of the application) are queued or running
   * and were created before this one: its place in its user's own line (0 for the user's next).
   */
  ownQueuePosition(id: string): Promise<number>;
  /** Extends the lease; false when `owner` no longer holds it. */
  renewScanLease(id: string, owner: string, now: Date, leaseMs: number): Promise<boolean>;
  recordScanProgress(id: string, owner: string, done: number, total: number): Promise<boolean>;
  finishScan(
    id: string,
    owner: string,
    result: { summary: unknown; findings: unknown[]; scope?: ScanScope },
    at: Date,
  ): Promise<boolean>;
  failScan(id: string, owner: string, error: string, at: Date): Promise<boolean>;
  /** Records the check run an application scan reports to (a later run reuses it). */
  recordCheckRun(id: string, owner: string, checkRunId: string): Promise<boolean>;
  /** Puts a held scan back in the queue (a worker stopping); this run does not count as an attempt. */
  releaseScan(id: string, owner: string): Promise<boolean>;
}
