/** OAuth sign-ins in flight: the `state` (by hash) and its PKCE verifier, kept for every instance. */
export interface OAuthStateRepository {
  /** `userId`: the signed-in user who started the flow to link an account to theirs (null: a sign-in). */
  saveOAuthState(input: {
    stateHash: string;
    verifier: string;
    at: Date;
    userId?: number | null;
  }): Promise<void>;
  /** Deletes and returns the state, so a state (and the code it came with) is used once. */
  takeOAuthState(
    stateHash: string,
  ): Promise<{ verifier: string; createdAt: Date; userId: number | null } | null>;
  /** Deletes states created before `before` (abandoned sign-ins); returns how many. */
  deleteOAuthStatesBefore(before: Date): Promise<number>;
}
