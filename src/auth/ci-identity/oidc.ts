import {
  createLocalJWKSet,
  createRemoteJWKSet,
  decodeProtectedHeader,
  errors,
  type FlattenedJWSInput,
  type JSONWebKeySet,
  type JWKSCacheInput,
  type JWSHeaderParameters,
  type JWTPayload,
  jwksCache,
  jwtVerify,
} from 'jose';

/**
 * Why an identity token was refused. Each is short, fixed and safe to return to the caller or to log:
 * none carries any part of the token or of its claims.
 */
export type IdentityReason =
  | 'expired'
  | 'not yet valid'
  | 'wrong audience'
  | 'wrong issuer'
  | 'bad signature'
  | 'unsupported algorithm'
  | 'malformed token'
  | 'unknown signing key'
  | 'issuer keys unavailable'
  | 'malformed repository claim'
  | 'malformed project claim';

/**
 * A refused identity token (the binary endpoint answers 401). The message is the reason alone. The jose
 * error is deliberately not kept as `cause`: jose's claim errors carry the whole claims set, which must
 * not reach a log through an error serializer.
 */
export class IdentityError extends Error {
  override readonly name = 'IdentityError';
  constructor(readonly reason: IdentityReason) {
    super(reason);
  }
}

/** The verified claims of a CI identity token. */
export type IdentityClaims = JWTPayload;

export interface IdentityVerifierOptions {
  /** The issuer the `iss` claim must equal exactly (`SVC_OIDC_A_ISSUER` / `SVC_OIDC_B_ISSUER`). */
  issuer: string;
  /** Where the issuer publishes its signing keys (a JWKS). */
  jwksUrl: string;
  /** The `aud` the token must carry: `svc`. */
  audience?: string;
  /** Leeway for `exp`, `nbf` and `iat` against clocks that drift: 30 s. */
  clockToleranceSeconds?: number;
  /** How long one JWKS fetch may take. Default 5000 ms. */
  fetchTimeoutMs?: number;
  /** How long fetched keys are used before they are fetched again. Default 10 minutes. */
  jwksMaxAgeMs?: number;
  /**
   * After a fetch, the time during which a token naming an unknown `kid` does not trigger another one,
   * so a flood of made-up key ids cannot turn into a flood of fetches. Default 30 s.
   */
  jwksCooldownMs?: number;
  /**
   * After a fetch fails, the time during which no new fetch is tried: verification answers at once from
   * the keys it still holds, or with `issuer keys unavailable`, instead of every request waiting out the
   * fetch timeout against a dead issuer. Default 5 s.
   */
  retryAfterFailureMs?: number;
}

export interface IdentityVerifier {
  /** The verified claims, or an {@link IdentityError}. */
  verify(token: string): Promise<IdentityClaims>;
}

/** Keys kept past their age are still used while the issuer cannot be reached, for at most this long. */
const MAX_STALE_KEYS_MS = 24 * 60 * 60 * 1000;
/** Far above any real CI identity token (GitHub's and GitLab's are about 1-2 kB). */
const MAX_TOKEN_LENGTH = 16 * 1024;
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
const ALGORITHM = 'RS256';

/** Thrown inside the key resolver when the issuer's keys could not be fetched. */
class KeysUnavailable extends Error {}

/**
 * A verifier of one issuer's CI identity tokens: RS256 only, `iss` pinned,
 * `aud` checked, `exp` required, 30 s clock tolerance. The issuer's JWKS is fetched on first use, kept
 * and refreshed by jose; an unknown `kid` refetches it at most once per cooldown (key rotation).
 */
export function createIdentityVerifier(options: IdentityVerifierOptions): IdentityVerifier {
  const {
    issuer,
    jwksUrl,
    audience = 'svc',
    clockToleranceSeconds = 30,
    fetchTimeoutMs = 5000,
    jwksMaxAgeMs = 10 * 60 * 1000,
    jwksCooldownMs = 30_000,
    retryAfterFailureMs = 5000,
  } = options;

  // jose writes each successfully fetched key set and its time here.
  const cache: { jwks?: JSONWebKeySet; uat?: number } = {};
  const remote = createRemoteJWKSet(new URL(jwksUrl), {
    timeoutDuration: fetchTimeoutMs,
    cooldownDuration: jwksCooldownMs,
    cacheMaxAge: jwksMaxAgeMs,
    [jwksCache]: cache as JWKSCacheInput,
  });
  let failedAt = Number.NEGATIVE_INFINITY;
  let stale: { uat: number; resolve: ReturnType<typeof createLocalJWKSet> } | undefined;

  /** A key from the last keys fetched, while they are not too old to use when the issuer is unreachable. */
  const fromHeldKeys = async (header: JWSHeaderParameters, token: FlattenedJWSInput) => {
    if (cache.jwks === undefined || cache.uat === undefined) throw new KeysUnavailable();
    if (Date.now() - cache.uat > MAX_STALE_KEYS_MS) throw new KeysUnavailable();
    if (stale?.uat !== cache.uat) stale = { uat: cache.uat, resolve: createLocalJWKSet(cache.jwks) };
    try {
      return await stale.resolve(header, token);
    } catch (e) {
      throw isKeyMiss(e) ? e : new KeysUnavailable();
    }
  };

  const getKey = async (header: JWSHeaderParameters, token: FlattenedJWSInput) => {
    if (Date.now() - failedAt < retryAfterFailureMs) return fromHeldKeys(header, token);
    try {
      return await remote(header, token);
    } catch (e) {
      if (isKeyMiss(e)) throw e;
      // Network error, timeout, non-200, not JSON, not a usable key set: the issuer's keys are unavailable.
      failedAt = Date.now();
      return fromHeldKeys(header, token);
    }
  };

  return {
    async verify(token: string): Promise<IdentityClaims> {
      if (typeof token !== 'string' || token.length > MAX_TOKEN_LENGTH || !COMPACT_JWS.test(token)) {
        throw new IdentityError('malformed token');
      }
      let alg: unknown;
      try {
        alg = decodeProtectedHeader(token).alg;
      } catch {
        throw new IdentityError('malformed token');
      }
      // Checked before any key is looked up: `none`, HMAC (the RS/HS confusion) and every other
      // algorithm are refused outright.
      if (alg !== ALGORITHM) throw new IdentityError('unsupported algorithm');
      try {
        const { payload } = await jwtVerify(token, getKey, {
          algorithms: [ALGORITHM],
          issuer,
          audience,
          clockTolerance: clockToleranceSeconds,
          requiredClaims: ['exp'],
        });
        // jose checks that `iat` is a number but not when it lies: a token issued in the future
        // (beyond the clock tolerance) was not issued by a working issuer's clock.
        if (typeof payload.iat === 'number' && payload.iat > Date.now() / 1000 + clockToleranceSeconds) {
          throw new IdentityError('not yet valid');
        }
        return payload;
      } catch (e) {
        if (e instanceof IdentityError) throw e;
        throw new IdentityError(reasonOf(e));
      }
    },
  };
}

/** The key set answered, and holds no (single) key for the token's `kid`. */
function isKeyMiss(e: unknown): boolean {
  return e instanceof errors.JWKSNoMatchingKey || e instanceof errors.JWKSMultipleMatchingKeys;
}

function reasonOf(e: unknown): IdentityReason {
  if (e instanceof KeysUnavailable) return 'issuer keys unavailable';
  if (e instanceof errors.JWTExpired) return 'expired';
  if (e instanceof errors.JWTClaimValidationFailed) {
    if (e.claim === 'aud') return 'wrong audience'; // absent or not `svc`
    if (e.claim === 'iss') return 'wrong issuer'; // absent or not the pinned issuer
    if (e.reason === 'check_failed' && (e.claim === 'nbf' || e.claim === 'iat')) return 'not yet valid';
    return 'malformed token'; // `exp` missing, or a time claim that is not a number
  }
  if (e instanceof errors.JWSSignatureVerificationFailed) return 'bad signature';
  if (isKeyMiss(e)) return 'unknown signing key';
  if (e instanceof errors.JOSEAlgNotAllowed) return 'unsupported algorithm';
  return 'malformed token';
}
