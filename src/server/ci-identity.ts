import { IdentityError, projectFromCodehostB, repositoryFromCodehostA } from '../auth/identity.js';
import type { IdentityClaims } from '../auth/oidc.js';
import { parseRepositoryParam } from '../auth/repository-name.js';
import type { Plan } from '../storage/index.js';
import { badRequest, unauthorized } from './errors.js';

export type Visibility = 'public' | 'private' | 'internal';

/** The repository a CI run is for, and what is known of its visibility (null: unknown). */
export interface CiIdentity {
  platform: 'a' | 'b';
  repository: string;
  visibility: Visibility | null;
  /** Proven by a signed identity token, rather than reported by the caller. */
  proven: boolean;
}

export interface IdentityServices {
  verifyCodehostA(token: string): Promise<IdentityClaims>;
  verifyCodehostB(token: string): Promise<IdentityClaims>;
  /** Platform B's API answer for a project's visibility; null when it cannot say. */
  projectVisibility(projectPath: string): Promise<Visibility | null>;
}

export interface CiIdentityRequest {
  codehostAToken: string | undefined;
  codehostBToken: string | undefined;
  codehostbProject: string | undefined;
  repo: string | undefined;
}

/**
 * Spec 4.1: the repository by platform A token, then platform B token, then `codehostb_project=`,
 * then `repo=`. A token that is present must be valid (401); self-reported names need a paid plan.
 */
export async function resolveCiIdentity(
  request: CiIdentityRequest,
  plan: Plan,
  services: IdentityServices,
): Promise<CiIdentity> {
  if (request.codehostAToken !== undefined) {
    const claims = await verified('platform A', () => services.verifyCodehostA(request.codehostAToken!));
    const { repository, visibility } = fromClaims(() => repositoryFromCodehostA(claims));
    return { platform: 'a', repository, visibility, proven: true };
  }
  if (request.codehostBToken !== undefined) {
    const claims = await verified('platform B', () => services.verifyCodehostB(request.codehostBToken!));
    const project = fromClaims(() => projectFromCodehostB(claims));
    const visibility = project.visibility ?? (await services.projectVisibility(project.repository));
    return { platform: 'b', repository: project.repository, visibility, proven: true };
  }
  const selfReported = request.codehostbProject ?? request.repo;
  if (selfReported === undefined) {
    throw badRequest(
      plan === 'free'
        ? 'an identity token is required on the Free plan (X-CodeHostA-OIDC or X-CodeHostB-OIDC)'
        : 'repository missing: send an identity token, codehostb_project=<group>/<project> or repo=<owner>/<name>',
    );
  }
  if (plan === 'free') {
    throw badRequest(
      'an identity token is required on the Free plan: self-reported repositories need a paid plan',
    );
  }
  const platform = request.codehostbProject !== undefined ? 'b' : 'a';
  const repository = parseRepositoryParam(platform, selfReported);
  if (repository === null) {
    throw badRequest(
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
    if (e instanceof IdentityError) throw unauthorized(`invalid ${which} identity token: ${e.message}`);
    throw e;
  }
}

function fromClaims<T>(read: () => T): T {
  try {
    return read();
  } catch (e) {
    if (e instanceof IdentityError)
      throw badRequest(`repository missing or malformed in the identity token: ${e.message}`);
    throw e;
  }
}
