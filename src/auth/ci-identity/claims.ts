import { type IdentityClaims, IdentityError } from './oidc.js';
import { parseRepositoryParam } from './repository-name.js';

export type Visibility = 'public' | 'private' | 'internal';

/** A GitHub repository proven by a verified identity token. */
export interface CodehostARepository {
  platform: 'a';
  /** `owner/name`, from the `repository` claim. */
  repository: string;
  visibility: Visibility;
}

/** A GitLab project proven by a verified identity token. */
export interface CodehostBProject {
  platform: 'b';
  /** `group/sub/project`, from the `project_path` claim. */
  repository: string;
  /** From the `project_visibility` claim; null when the token lacks it (ask the GitLab API). */
  visibility: Visibility | null;
}

export type ProvenRepository = CodehostARepository | CodehostBProject;

/**
 * The repository of a verified GitHub token (`repository`, `repository_visibility`). A missing or
 * unrecognized visibility counts as `private`: only a token that says `public` proves a public repository.
 */
export function repositoryFromCodehostA(claims: IdentityClaims): CodehostARepository {
  const repository =
    typeof claims.repository === 'string' ? parseRepositoryParam('a', claims.repository) : null;
  if (repository === null) throw new IdentityError('malformed repository claim');
  return { platform: 'a', repository, visibility: asVisibility(claims.repository_visibility) ?? 'private' };
}

/** The project of a verified GitLab token (`project_path`, and `project_visibility` when present). */
export function projectFromCodehostB(claims: IdentityClaims): CodehostBProject {
  const repository =
    typeof claims.project_path === 'string' ? parseRepositoryParam('b', claims.project_path) : null;
  if (repository === null) throw new IdentityError('malformed project claim');
  return { platform: 'b', repository, visibility: asVisibility(claims.project_visibility) };
}

export function asVisibility(value: unknown): Visibility | null {
  return value === 'public' || value === 'private' || value === 'internal' ? value : null;
}
