import { z } from 'zod';

const SHA = /^[0-9a-f]{40}$/;
const sha = z.string().regex(SHA);

/**
 * What one GitHub application scan is of, as the webhook records it in the scan's row (JSON):
 * the commits reachable from `head` and from none of `exclude` (the push's previous tip, the pull
 * request's base), with the default branch also excluded when the scanned ref is another branch, so
 * commits already on it are not scanned again. The check run goes on `head`.
 */
export const appScanJobSchema = z.object({
  installationId: z.number().int().positive(),
  /** `owner/name` as the platform spells it. */
  repository: z.string().regex(/^[^/\s]+\/[^/\s]+$/),
  event: z.enum(['push', 'pull_request']),
  head: sha,
  exclude: z.array(sha).max(10),
  /** The repository's default branch (short name): `.svcignore` is read from it. */
  defaultBranch: z.string().min(1).max(255),
  /** Whether the scanned ref is the default branch itself (then its tip is not excluded). */
  onDefaultBranch: z.boolean(),
  pullRequest: z.number().int().positive().optional(),
});

export type AppScanJob = z.infer<typeof appScanJobSchema>;

export const ZERO_SHA = '0'.repeat(40);

export function isSha(value: string): boolean {
  return SHA.test(value);
}

/** The job of a scan row, or null when the row's JSON is not one (written by a newer version). */
export function parseAppScanJob(json: string): AppScanJob | null {
  try {
    const parsed = appScanJobSchema.safeParse(JSON.parse(json));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export function ownerAndName(repository: string): { owner: string; name: string } {
  const slash = repository.indexOf('/');
  return { owner: repository.slice(0, slash), name: repository.slice(slash + 1) };
}
