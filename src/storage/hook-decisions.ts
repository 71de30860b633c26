/** An install command's decision: the parsed packages and reasons only, never the command line. */
export interface HookDecisionInput {
  userId: number;
  agent: 'a' | 'b';
  mode: 'block' | 'warn';
  decision: 'allow' | 'deny' | 'ask';
  /** The parsed packages (ecosystem, name, version) as judged. */
  packages: unknown[];
  reasons: string[];
  at: Date;
}

export interface HookDecisionRecord extends HookDecisionInput {
  id: number;
}

export interface HookDecisionRepository {
  recordHookDecision(input: HookDecisionInput): Promise<void>;
  /** A user's decisions, newest first. */
  listHookDecisions(userId: number, limit: number): Promise<HookDecisionRecord[]>;
}
