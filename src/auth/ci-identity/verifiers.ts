import type { Visibility } from './claims.js';
import { fetchProjectVisibility } from './codehostb-visibility.js';
import { createIdentityVerifier, type IdentityClaims } from './oidc.js';

/** What the CI-run policy needs to know about identity tokens and GitLab projects. */
export interface IdentityServices {
  verifyCodehostA(token: string): Promise<IdentityClaims>;
  verifyCodehostB(token: string): Promise<IdentityClaims>;
  /** GitLab's API answer for a project's visibility; null when it cannot say. */
  projectVisibility(projectPath: string): Promise<Visibility | null>;
}

/** Where each platform's tokens come from, and GitLab's API (SVC_OIDC_*, SVC_CODEHOSTB_*). */
export interface IdentitySettings {
  a: { issuer: string; jwksUrl: string };
  b: { issuer: string; jwksUrl: string };
  codehostbApiUrl: string;
  codehostbToken?: string | undefined;
}

/** The identity token verifiers (one per platform, each pinned to its issuer) and the GitLab lookup. */
export function createIdentityServices(settings: IdentitySettings): IdentityServices {
  const a = createIdentityVerifier({ issuer: settings.a.issuer, jwksUrl: settings.a.jwksUrl });
  const b = createIdentityVerifier({ issuer: settings.b.issuer, jwksUrl: settings.b.jwksUrl });
  return {
    verifyCodehostA: (token) => a.verify(token),
    verifyCodehostB: (token) => b.verify(token),
    projectVisibility: (projectPath) =>
      fetchProjectVisibility({
        apiUrl: settings.codehostbApiUrl,
        token: settings.codehostbToken,
        projectPath,
      }),
  };
}
