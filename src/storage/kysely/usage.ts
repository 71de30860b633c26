import { CompiledQuery, type Kysely, sql } from 'kysely';
import type { Database } from '../schema.js';
import type { CountResult, UsageAccountKey, UsageRepository } from '../usage.js';
import { type InferRow, sqlOf } from './rows.js';

const MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;

export class KyselyUsage implements UsageRepository {
  /** Read on every binary download, compiled once (see sqlOf). */
  private readonly usedSql: string;

  constructor(private readonly db: Kysely<Database>) {
    this.usedSql = sqlOf(this.usedQuery({ kind: 'user', id: 0 }, 'YYYY-MM').compile(), 3);
  }

  private usedQuery(account: UsageAccountKey, month: string) {
    return this.db
      .selectFrom('ci_run_usage')
      .select('runs')
      .where('account_kind', '=', account.kind)
      .where('account_id', '=', account.id)
      .where('month', '=', month);
  }

  async countCiRun(account: UsageAccountKey, month: string, limit: number): Promise<CountResult> {
    if (!MONTH.test(month)) throw new Error(`month must be YYYY-MM, got: ${month}`);
    if (limit <= 0) return { counted: false, used: await this.ciRunsUsed(account, month) };
    // One statement, so the check and the increment cannot be split by another caller: SQLite runs
    // it under its single write lock, PostgreSQL under the row lock ON CONFLICT takes and re-checks
    // the WHERE against. No row back means the guard refused: the limit is reached.
    const row = await this.db
      .insertInto('ci_run_usage')
      .values({ account_kind: account.kind, account_id: account.id, month, runs: 1 })
      .onConflict((oc) =>
        oc
          .columns(['account_kind', 'account_id', 'month'])
          .doUpdateSet({ runs: sql<number>`ci_run_usage.runs + 1` })
          .where('ci_run_usage.runs', '<', limit),
      )
      .returning('runs')
      .executeTakeFirst();
    if (row) return { counted: true, used: Number(row.runs) };
    return { counted: false, used: await this.ciRunsUsed(account, month) };
  }

  async ciRunsUsed(account: UsageAccountKey, month: string): Promise<number> {
    type Row = InferRow<ReturnType<KyselyUsage['usedQuery']>>;
    const params = [account.kind, account.id, month];
    const { rows } = await this.db.executeQuery<Row>(CompiledQuery.raw(this.usedSql, params));
    return rows[0] ? Number(rows[0].runs) : 0;
  }

  async releaseCiRun(account: UsageAccountKey, month: string): Promise<void> {
    await this.db
      .updateTable('ci_run_usage')
      .set({ runs: sql<number>`runs - 1` })
      .where('account_kind', '=', account.kind)
      .where('account_id', '=', account.id)
      .where('month', '=', month)
      .where('runs', '>', 0)
      .execute();
  }
}
