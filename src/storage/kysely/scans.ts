import { randomUUID } from 'node:crypto';
import {
  type ExpressionBuilder,
  type Kysely,
  PostgresAdapter,
  type Selectable,
  sql,
  type UpdateObject,
} from 'kysely';
import type { ClaimedScan, ScanRecord, ScanRepository, ScanScope, ScanViewer } from '../scans.js';
import type { Database, ScansTable } from '../schema.js';
import { toDate } from './rows.js';

type Scans = ExpressionBuilder<Database, 'scans'>;

export class KyselyScans implements ScanRepository {
  /** PostgreSQL takes row locks (FOR UPDATE SKIP LOCKED); SQLite has one writer at a time anyway. */
  private readonly postgres: boolean;

  constructor(private readonly db: Kysely<Database>) {
    this.postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  }

  async createScan(input: {
    userId: number;
    teamId: number | null;
    url: string;
    at: Date;
  }): Promise<ScanRecord> {
    const row = await this.db
      .insertInto('scans')
      .values({
        id: randomUUID(),
        user_id: input.userId,
        team_id: input.teamId,
        url: input.url,
        status: 'queued',
        error: null,
        summary: null,
        findings: null,
        created_at: input.at.toISOString(),
        lease_owner: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toScan(row, true);
  }

  async createAppScan(input: {
    url: string;
    appJob: string;
    deliveryId: string;
    at: Date;
  }): Promise<string | null> {
    const row = await this.db
      .insertInto('scans')
      .values({
        id: randomUUID(),
        user_id: null,
        team_id: null,
        url: input.url,
        status: 'queued',
        created_at: input.at.toISOString(),
        app_job: input.appJob,
        delivery_id: input.deliveryId,
      })
      .onConflict((oc) => oc.column('delivery_id').doNothing())
      .returning('id')
      .executeTakeFirst();
    return row?.id ?? null;
  }

  async findScan(id: string, viewer: ScanViewer): Promise<ScanRecord | null> {
    const row = await this.db
      .selectFrom('scans')
      .selectAll()
      .where('id', '=', id)
      .where((eb) => visibleTo(eb, viewer))
      .executeTakeFirst();
    return row ? toScan(row, true) : null;
  }

  async listScans(viewer: ScanViewer, limit: number): Promise<ScanRecord[]> {
    const rows = await this.db
      .selectFrom('scans')
      .select([
        'id',
        'user_id',
        'team_id',
        'url',
        'status',
        'progress_done',
        'progress_total',
        'error',
        'summary',
        'scope',
        'created_at',
        'started_at',
        'finished_at',
        'attempt',
      ])
      .where((eb) => visibleTo(eb, viewer))
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    return rows.map((row) =>
      toScan(
        {
          ...row,
          findings: null,
          lease_owner: null,
          lease_until: null,
          app_job: null,
          delivery_id: null,
          check_run_id: null,
        },
        false,
      ),
    );
  }

  async claimNextScan(owner: string, now: Date, leaseMs: number): Promise<ClaimedScan | null> {
    const at = now.toISOString();
    const claimable = (eb: Scans) =>
      eb.or([
        eb('status', '=', 'queued'),
        eb.and([eb('status', '=', 'running'), eb('lease_until', '<', at)]),
      ]);
    // One statement: the pick and the take cannot be split by another worker. PostgreSQL locks the
    // picked row and lets others skip it (and re-checks it against the condition if it changed
    // meanwhile); SQLite runs the statement under its single write lock.
    // Fair per user (issue 29: one user's queued scans held everyone's back): the user served least
    // recently first (never served: first of all), then that user's oldest scan. Application scans
    // (no user) take turns as one user.
    const lastServed = sql`(select max(served.started_at) from scans as served where served.user_id = scans.user_id or (served.user_id is null and scans.user_id is null))`;
    const row = await this.db
      .updateTable('scans')
      .set(this.claimed(owner, now, leaseMs))
      .where('id', '=', (eb) =>
        eb
          .selectFrom('scans')
          .select('id')
          .where(claimable)
          .orderBy(lastServed, (ob) => ob.asc().nullsFirst())
          .orderBy('created_at')
          .orderBy('id')
          .limit(1)
          .$if(this.postgres, (qb) => qb.forUpdate().skipLocked()),
      )
      .where(claimable)
      .returning(CLAIMED_COLUMNS)
      .executeTakeFirst();
    return row ? toClaimed(row) : null;
  }

  async cancelScan(id: string, viewer: ScanViewer, at: Date): Promise<boolean> {
    const result = await this.db
      .updateTable('scans')
      .set({ status: 'canceled', finished_at: at.toISOString(), lease_owner: null, lease_until: null })
      .where('id', '=', id)
      .where((eb) => visibleTo(eb, viewer))
      .where('status', 'in', ['queued', 'running'])
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async claimScan(id: string, owner: string, now: Date, leaseMs: number): Promise<ClaimedScan | null> {
    const row = await this.db
      .updateTable('scans')
      .set(this.claimed(owner, now, leaseMs))
      .where('id', '=', id)
      .where('status', 'in', ['queued', 'running'])
      .returning(CLAIMED_COLUMNS)
      .executeTakeFirst();
    return row ? toClaimed(row) : null;
  }

  async listUnheldScanIds(now: Date, limit: number): Promise<string[]> {
    const at = now.toISOString();
    const rows = await this.db
      .selectFrom('scans')
      .select('id')
      .where((eb) =>
        eb.or([
          eb('status', '=', 'queued'),
          eb.and([eb('status', '=', 'running'), eb('lease_until', '<', at)]),
        ]),
      )
      .orderBy('created_at')
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map((row) => row.id);
  }

  async ownQueuePosition(id: string): Promise<number> {
    const row = await this.db
      .selectFrom('scans as mine')
      .innerJoin('scans as ahead', (join) =>
        join
          .on((eb) =>
            eb.or([
              eb('ahead.user_id', '=', eb.ref('mine.user_id')),
              eb.and([eb('ahead.user_id', 'is', null), eb('mine.user_id', 'is', null)]),
            ]),
          )
          .onRef('ahead.created_at', '<', 'mine.created_at'),
      )
      .select((eb) => eb.fn.countAll<number | string | bigint>().as('ahead'))
      .where('mine.id', '=', id)
      .where('ahead.status', 'in', ['queued', 'running'])
      .executeTakeFirst();
    return Number(row?.ahead ?? 0);
  }

  /** A claim's row values: running, leased to `owner`, one more attempt, progress from zero. */
  private claimed(owner: string, now: Date, leaseMs: number) {
    return {
      status: 'running' as const,
      lease_owner: owner,
      lease_until: new Date(now.getTime() + leaseMs).toISOString(),
      attempt: sql<number>`attempt + 1`,
      started_at: now.toISOString(),
      progress_done: 0,
      progress_total: 0,
    };
  }

  async renewScanLease(id: string, owner: string, now: Date, leaseMs: number): Promise<boolean> {
    return this.heldWrite(id, owner, { lease_until: new Date(now.getTime() + leaseMs).toISOString() });
  }

  async recordScanProgress(id: string, owner: string, done: number, total: number): Promise<boolean> {
    return this.heldWrite(id, owner, { progress_done: done, progress_total: total });
  }

  async finishScan(
    id: string,
    owner: string,
    result: { summary: unknown; findings: unknown[]; scope?: ScanScope },
    at: Date,
  ): Promise<boolean> {
    return this.heldWrite(id, owner, {
      status: 'done',
      summary: JSON.stringify(result.summary),
      findings: JSON.stringify(result.findings),
      scope: result.scope === undefined ? null : JSON.stringify(result.scope),
      finished_at: at.toISOString(),
      lease_owner: null,
      lease_until: null,
    });
  }

  async failScan(id: string, owner: string, error: string, at: Date): Promise<boolean> {
    return this.heldWrite(id, owner, {
      status: 'failed',
      error,
      finished_at: at.toISOString(),
      lease_owner: null,
      lease_until: null,
    });
  }

  async recordCheckRun(id: string, owner: string, checkRunId: string): Promise<boolean> {
    return this.heldWrite(id, owner, { check_run_id: checkRunId });
  }

  async releaseScan(id: string, owner: string): Promise<boolean> {
    return this.heldWrite(id, owner, {
      status: 'queued',
      attempt: sql<number>`attempt - 1`,
      started_at: null,
      progress_done: 0,
      progress_total: 0,
      lease_owner: null,
      lease_until: null,
    });
  }

  /** A worker's write: applied only while `owner` holds the lease on the running scan. */
  private async heldWrite(
    id: string,
    owner: string,
    values: UpdateObject<Database, 'scans'>,
  ): Promise<boolean> {
    const result = await this.db
      .updateTable('scans')
      .set(values)
      .where('id', '=', id)
      .where('lease_owner', '=', owner)
      .where('status', '=', 'running')
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }
}

/** The user's own scans and, for a team member, the team's. */
function visibleTo(eb: Scans, viewer: ScanViewer) {
  return viewer.teamId === null
    ? eb('user_id', '=', viewer.userId)
    : eb.or([eb('user_id', '=', viewer.userId), eb('team_id', '=', viewer.teamId)]);
}

const CLAIMED_COLUMNS = ['id', 'url', 'attempt', 'app_job', 'check_run_id'] as const;

function toClaimed(row: Pick<Selectable<ScansTable>, (typeof CLAIMED_COLUMNS)[number]>): ClaimedScan {
  return {
    id: row.id,
    url: row.url,
    attempt: Number(row.attempt),
    appJob: row.app_job,
    checkRunId: row.check_run_id,
  };
}

const dateOrNull = (value: Date | string | null) => (value === null ? null : toDate(value));

function toScan(row: Selectable<ScansTable>, withFindings: boolean): ScanRecord {
  return {
    id: row.id,
    userId: row.user_id,
    teamId: row.team_id,
    url: row.url,
    status: row.status,
    progress: { done: Number(row.progress_done), total: Number(row.progress_total) },
    error: row.error,
    summary: row.summary === null ? null : JSON.parse(row.summary),
    scope: row.scope === null ? null : (JSON.parse(row.scope) as ScanScope),
    findings: withFindings && row.findings !== null ? (JSON.parse(row.findings) as unknown[]) : null,
    createdAt: toDate(row.created_at),
    startedAt: dateOrNull(row.started_at),
    finishedAt: dateOrNull(row.finished_at),
    attempt: Number(row.attempt),
  };
}
