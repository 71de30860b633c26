import {
  type IdentityClaims,
  IdentityError,
  type IdentityServices,
  parseRepositoryParam,
  projectFromCodehostB,
  repositoryFromCodehostA,
  type Visibility,
} from '../auth/ci-identity/index.js';
import { invalidInput, unauthenticated } from './errors.js';
import type { Plan } from './vocabulary.js';

/** The repository a CI run is for, and what is known of its visibility (null: unknown). */
export interface CiIdentity {
  platform: 'a' | 'b';
  repository: string;
  visibility: Visibility | null;
  /** Proven by a signed identity token, rather than reported by the caller. */
  proven: boolean;
}

/** How a CI job names its repository: identity tokens (headers) or self-reported names (query). */
export interface CiIdentityRequest {
  codehostAToken: string | undefined;
  codehostBToken: string | undefined;
  codehostbProject: string | undefined;
  repo: string | undefined;
}

/**
 * The repository of a CI run, by the first mechanism present: a GitHub identity token, then a
 * GitLab token, then `codehostb_project=`, then `repo=`. A token that is present must be valid
 * (else unauthenticated, even when a self-reported name would do); self-reported names need a paid
 * plan, so the Free plan always needs a token.
 */
export async function resolveCiIdentity(
  request: CiIdentityRequest,
  plan: Plan,
  services: IdentityServices,
): Promise<CiIdentity> {
  if (request.codehostAToken !== undefined) {
    const claims = await verified('GitHub', () => services.verifyCodehostA(request.codehostAToken!));
    const { repository, visibility } = fromClaims(() => repositoryFromCodehostA(claims));
    return { platform: 'a', repository, visibility, proven: true };
  }
  if (request.codehostBToken !== undefined) {
    const claims = await verified('GitLab', () => services.verifyCodehostB(request.codehostBToken!));
    const project = fromClaims(() => projectFromCodehostB(claims));
    const visibility = project.visibility ?? (await services.projectVisibility(project.repository));
    return { platform: 'b', repository: project.repository, visibility, proven: true };
  }
  const selfReported = request.codehostbProject ?? request.repo;
  if (selfReported === undefined) {
    throw invalidInput(
      plan === 'free'
        ? 'an identity token is required on the Free plan (X-CodeHostA-OIDC or X-CodeHostB-OIDC)'
        : 'repository missing: send an identity token, codehostb_project=<group>/<project> or repo=<owner>/<name>',
    );
  }
  if (plan === 'free') {
    throw invalidInput(
      'an identity token is required on the Free plan: self-reported repositories need a paid plan',
    );
  }
  const platform = request.codehostbProject !== undefined ? 'b' : 'a';
  const repository = parseRepositoryParam(platform, selfReported);
  if (repository === null) {
    throw invalidInput(
      platform === 'b'
        ? 'malformed codehostb_project: expected <group>/<project>'
        : 'malformed repo: expected <owner>/<name>',
    );
  }
  return { platform, repository, visibility: null, proven: false };
}

async function verified(which: string, verify: () => Promise<IdentityClaims>): Promise<IdentityClaims> {
  try {
    return await verify();
  } catch (e) {
    if (e instanceof IdentityError) throw unauthenticated(`invalid ${which} identity token: ${e.message}`);
    throw e;
  }
}

function fromClaims<T>(read: () => T): T {
  try {
    return read();
  } catch (e) {
    if (e instanceof IdentityError)
      throw invalidInput(`repository missing or malformed in the identity token: ${e.message}`);
    throw e;
  }
}
