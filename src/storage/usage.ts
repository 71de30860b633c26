/** Whose monthly CI runs are counted: a user, or a team. */
export interface UsageAccountKey {
  kind: 'user' | 'team';
  id: number;
}

export type CountResult = { counted: true; used: number } | { counted: false; used: number };

/** Monthly CI-run counters. */
export interface UsageRepository {
  /**
   * Counts one CI run for the account in `month` (`YYYY-MM`, UTC) if fewer than `limit` were counted:
   * atomically, so concurrent calls at the limit cannot both pass.
   */
  countCiRun(account: UsageAccountKey, month: string, limit: number): Promise<CountResult>;
  ciRunsUsed(account: UsageAccountKey, month: string): Promise<number>;
  /** Gives back one counted run (a download that did not complete); never below zero. */
  releaseCiRun(account: UsageAccountKey, month: string): Promise<void>;
}
