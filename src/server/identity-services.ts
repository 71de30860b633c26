import { fetchProjectVisibility } from '../auth/codehostb-visibility.js';
import { createIdentityVerifier } from '../auth/oidc.js';
import type { Config } from '../config/config.js';
import type { IdentityServices } from './ci-identity.js';

/** The identity token verifiers and platform B lookup, built from configuration (contract 3). */
export function identityServicesFromConfig(config: Pick<Readonly<Config>, 'oidc'>): IdentityServices {
  const a = createIdentityVerifier({ issuer: config.oidc.a.issuer, jwksUrl: config.oidc.a.jwksUrl });
  const b = createIdentityVerifier({ issuer: config.oidc.b.issuer, jwksUrl: config.oidc.b.jwksUrl });
  return {
    verifyCodehostA: (token) => a.verify(token),
    verifyCodehostB: (token) => b.verify(token),
    projectVisibility: (projectPath) =>
      fetchProjectVisibility({
        apiUrl: config.oidc.codehostbApiUrl,
        token: config.oidc.codehostbToken,
        projectPath,
      }),
  };
}
