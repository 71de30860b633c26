import type { Kysely } from 'kysely';
import type { HookDecisionInput, HookDecisionRecord, HookDecisionRepository } from '../hook-decisions.js';
import type { Database } from '../schema.js';
import { toDate } from './rows.js';

export class KyselyHookDecisions implements HookDecisionRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async recordHookDecision(input: HookDecisionInput): Promise<void> {
    await this.db
      .insertInto('hook_decisions')
      .values({
        user_id: input.userId,
        agent: input.agent,
        mode: input.mode,
        decision: input.decision,
        packages: JSON.stringify(input.packages),
        reasons: JSON.stringify(input.reasons),
        created_at: input.at.toISOString(),
      })
      .execute();
  }

  async listHookDecisions(userId: number, limit: number): Promise<HookDecisionRecord[]> {
    const rows = await this.db
      .selectFrom('hook_decisions')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      id: r.id,
      userId: r.user_id,
      agent: r.agent,
      mode: r.mode,
      decision: r.decision,
      packages: JSON.parse(r.packages) as unknown[],
      reasons: JSON.parse(r.reasons) as string[],
      at: toDate(r.created_at),
    }));
  }
}
