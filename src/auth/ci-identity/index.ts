export { asVisibility, projectFromCodehostB, repositoryFromCodehostA, type Visibility } from './claims.js';
export { type IdentityClaims, IdentityError } from './oidc.js';
export { parseRepositoryParam } from './repository-name.js';
export { createIdentityServices, type IdentityServices, type IdentitySettings } from './verifiers.js';
