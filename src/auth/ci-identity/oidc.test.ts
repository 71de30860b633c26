import { createServer } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { FakeIssuer, LATE_MS, type SignOptions } from '../../../test/helpers/fake-oidc.js';
import { projectFromCodehostB, repositoryFromCodehostA } from './claims.js';
import { createIdentityVerifier, IdentityError, type IdentityReason, type IdentityVerifier } from './oidc.js';

let issuer: FakeIssuer;
let verifierA: IdentityVerifier;
let verifierB: IdentityVerifier;

const claimsA = {
  sub: 'repo:octo/hello:ref:refs/heads/main',
  repository: 'octo/hello',
  repository_owner: 'octo',
  repository_visibility: 'public',
};
const claimsB = {
  sub: 'project_path:group/sub/proj:ref_type:branch:ref:main',
  project_path: 'group/sub/proj',
};

beforeAll(async () => {
  issuer = await FakeIssuer.start();
  verifierA = createIdentityVerifier({ issuer: issuer.issuer, jwksUrl: issuer.jwksUrlA });
  verifierB = createIdentityVerifier({ issuer: issuer.issuer, jwksUrl: issuer.jwksUrlB });
});
afterAll(() => issuer.stop());
afterEach(() => {
  issuer.jwksBehavior = 'ok';
  vi.useRealTimers();
});

/**
 * The cooldown, retry and max-age windows are read from Date.now() (by jose and by the verifier), so
 * the tests of those windows stop that clock and move it by hand: a slow machine can no longer carry
 * a test past a window it meant to stay inside. Only Date is faked; timers and sockets stay real.
 */
function stopTheClock(): { advance(ms: number): void } {
  vi.useFakeTimers({ toFake: ['Date'] });
  return { advance: (ms) => vi.setSystemTime(Date.now() + ms) };
}

/** A port on 127.0.0.1 that nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Rejects with exactly `reason`, and nothing of the token shows in the error. */
async function expectRejected(verifier: IdentityVerifier, token: string, reason: IdentityReason) {
  const error = await verifier.verify(token).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(IdentityError);
  const identityError = error as IdentityError;
  expect(identityError.reason).toBe(reason);
  expect(identityError.message).toBe(reason);
  expect(identityError.cause).toBeUndefined();
  const shown = `${String(identityError)} ${identityError.stack ?? ''} ${JSON.stringify(identityError)}`;
  for (const part of [token, ...token.split('.')].filter((p) => p.length >= 8)) {
    expect(shown).not.toContain(part);
  }
}

const signA = (options?: SignOptions) => issuer.sign(claimsA, options);

describe('good tokens', () => {
  it('GitHub: the repository and its visibility', async () => {
    const claims = await verifierA.verify(await signA());
    expect(claims.repository).toBe('octo/hello');
    expect(claims.aud).toBe('svc');
    expect(repositoryFromCodehostA(claims)).toEqual({
      platform: 'a',
      repository: 'octo/hello',
      visibility: 'public',
    });
  });

  it('GitLab: the project, with project_visibility when the token has it, else null', async () => {
    const withVisibility = await verifierB.verify(
      await issuer.sign({ ...claimsB, project_visibility: 'internal' }),
    );
    expect(projectFromCodehostB(withVisibility)).toEqual({
      platform: 'b',
      repository: 'group/sub/proj',
      visibility: 'internal',
    });
    const without = await verifierB.verify(await issuer.sign(claimsB));
    expect(projectFromCodehostB(without)).toEqual({
      platform: 'b',
      repository: 'group/sub/proj',
      visibility: null,
    });
  });

  it('an audience list that includes svc', async () => {
    await expect(verifierA.verify(await signA({ audience: ['other', 'svc'] }))).resolves.toBeTruthy();
  });

  it('expired 10 s ago: inside the 30 s clock tolerance', async () => {
    await expect(verifierA.verify(await signA({ expiresIn: -10 }))).resolves.toBeTruthy();
  });

  it('not valid until 10 s from now: inside the tolerance', async () => {
    const nbf = Math.floor(Date.now() / 1000) + 10;
    await expect(verifierA.verify(await signA({ notBefore: nbf }))).resolves.toBeTruthy();
  });
});

describe('refused tokens: a specific reason, never the token', () => {
  it('wrong audience', async () => {
    await expectRejected(verifierA, await signA({ audience: 'https://github.com/octo' }), 'wrong audience');
    await expectRejected(verifierA, await signA({ audience: ['other'] }), 'wrong audience');
    await expectRejected(verifierA, await signA({ audience: null }), 'wrong audience');
  });

  it('wrong issuer', async () => {
    await expectRejected(verifierA, await signA({ issuer: 'https://evil.example' }), 'wrong issuer');
    await expectRejected(verifierA, await signA({ issuer: `${issuer.issuer}/` }), 'wrong issuer');
    await expectRejected(verifierA, await signA({ issuer: null }), 'wrong issuer');
  });

  it('expired beyond the 30 s tolerance', async () => {
    await expectRejected(verifierA, await signA({ expiresIn: -60 }), 'expired');
    await expectRejected(verifierB, await issuer.sign(claimsB, { expiresIn: -3600 }), 'expired');
  });

  it('not yet valid beyond the tolerance', async () => {
    const nbf = Math.floor(Date.now() / 1000) + 120;
    await expectRejected(verifierA, await signA({ notBefore: nbf }), 'not yet valid');
  });

  it('issued in the future beyond the tolerance (an hour ahead), but not within it', async () => {
    const now = Math.floor(Date.now() / 1000);
    await expectRejected(verifierA, await signA({ issuedAt: now + 3600, expiresIn: 7200 }), 'not yet valid');
    await expectRejected(verifierA, await signA({ issuedAt: now + 120 }), 'not yet valid');
    await expect(verifierA.verify(await signA({ issuedAt: now + 10 }))).resolves.toBeTruthy();
  });

  it('no expiry at all', async () => {
    await expectRejected(verifierA, await signA({ noExpiry: true }), 'malformed token');
  });

  it('alg none', async () => {
    await expectRejected(verifierA, await signA({ alg: 'none' }), 'unsupported algorithm');
    await expectRejected(verifierA, await signA({ alg: 'none', kid: null }), 'unsupported algorithm');
  });

  it('HS256 keyed with the public key (algorithm confusion)', async () => {
    await expectRejected(verifierA, await signA({ alg: 'HS256' }), 'unsupported algorithm');
  });

  it('a key that is not in the JWKS', async () => {
    await expectRejected(verifierA, await signA({ foreignKey: true }), 'unknown signing key');
    await expectRejected(verifierA, await signA({ kid: 'made-up' }), 'unknown signing key');
  });

  it('a key that is not in the JWKS, claiming a published kid', async () => {
    await expectRejected(verifierA, await signA({ foreignKey: true, kid: issuer.kid }), 'bad signature');
  });

  it('claims changed after signing', async () => {
    const [header, , signature] = (await signA()).split('.');
    const forged = Buffer.from(
      JSON.stringify({ ...claimsA, repository: 'octo/other', iss: issuer.issuer }),
    ).toString('base64url');
    await expectRejected(verifierA, `${header}.${forged}.${signature}`, 'bad signature');
    const token = await signA();
    await expectRejected(verifierA, `${token.slice(0, -4)}AAAA`, 'bad signature');
  });

  it('malformed tokens', async () => {
    const good = await signA();
    const [header, payload] = good.split('.');
    for (const token of [
      '',
      'not-a-jwt',
      'a.b',
      'a.b.c.d',
      `${good}.`,
      `${good} `,
      `Bearer ${good}`,
      'eyJhbGciOiJSUzI1NiJ9x.eyJ9.c2ln', // header that is not JSON
      `${Buffer.from('[1]').toString('base64url')}.${payload}.c2ln`, // header that is not an object
      `${header}.${payload}.c2ln!`,
      `${header}.${'A'.repeat(20_000)}.c2ln`,
    ]) {
      await expectRejected(verifierA, token, 'malformed token');
    }
    // Well-formed but unsigned junk is refused by its signature before its claims are read.
    await expectRejected(
      verifierA,
      `${header}.${Buffer.from('not json').toString('base64url')}.c2ln`,
      'bad signature',
    );
  });
});

describe('the issuer keys', () => {
  it('are fetched once for many verifications, concurrent or not', async () => {
    const verifier = createIdentityVerifier({ issuer: issuer.issuer, jwksUrl: issuer.jwksUrlA });
    const tokens = await Promise.all(Array.from({ length: 10 }, () => signA()));
    const before = issuer.requests;
    await Promise.all(tokens.map((t) => verifier.verify(t)));
    for (const t of tokens) await verifier.verify(t);
    expect(issuer.requests - before).toBe(1);
  });

  it('an unknown kid refetches at most once per cooldown', async () => {
    const verifier = createIdentityVerifier({ issuer: issuer.issuer, jwksUrl: issuer.jwksUrlB });
    const before = issuer.requests;
    await verifier.verify(await signA());
    for (let i = 0; i < 10; i++) {
      await expectRejected(verifier, await signA({ kid: `made-up-${i}` }), 'unknown signing key');
    }
    expect(issuer.requests - before).toBe(1);
  });

  it('a rotated key is picked up once the cooldown has passed', async () => {
    const rotating = await FakeIssuer.start();
    const clock = stopTheClock();
    try {
      const verifier = createIdentityVerifier({
        issuer: rotating.issuer,
        jwksUrl: rotating.jwksUrlA,
        jwksCooldownMs: 300,
      });
      await verifier.verify(await rotating.sign(claimsA));
      await rotating.rotateKey();
      const token = await rotating.sign(claimsA);
      await expectRejected(verifier, token, 'unknown signing key'); // still cooling down: no refetch
      expect(rotating.requests).toBe(1);
      clock.advance(299);
      await expectRejected(verifier, token, 'unknown signing key'); // the last millisecond of it
      expect(rotating.requests).toBe(1);
      clock.advance(1);
      await expect(verifier.verify(token)).resolves.toMatchObject({ repository: 'octo/hello' });
      expect(rotating.requests).toBe(2);
    } finally {
      await rotating.stop();
    }
  });

  it('issuer down: issuer keys unavailable', async () => {
    const verifier = createIdentityVerifier({
      issuer: issuer.issuer,
      jwksUrl: `http://127.0.0.1:${await closedPort()}/.well-known/jwks`,
    });
    await expectRejected(verifier, await signA(), 'issuer keys unavailable');
  });

  it.each([
    'error',
    'not-json',
  ] as const)('JWKS endpoint answering %s: issuer keys unavailable', async (behavior) => {
    issuer.jwksBehavior = behavior;
    const verifier = createIdentityVerifier({ issuer: issuer.issuer, jwksUrl: issuer.jwksUrlA });
    await expectRejected(verifier, await signA(), 'issuer keys unavailable');
  });

  it('JWKS endpoint that answers too late: issuer keys unavailable after the configured fetch timeout', async () => {
    // The keys arrive after LATE_MS, before the 5 s default and long after the configured 200 ms:
    // rejected means the configured timeout ended the fetch (ordering, not elapsed time).
    expect(LATE_MS).toBeLessThan(5000);
    issuer.jwksBehavior = 'late';
    const verifier = createIdentityVerifier({
      issuer: issuer.issuer,
      jwksUrl: issuer.jwksUrlA,
      fetchTimeoutMs: 200,
    });
    await expectRejected(verifier, await signA(), 'issuer keys unavailable');
  });

  it('after a failed fetch, no new fetch for a while: answers at once', async () => {
    const clock = stopTheClock();
    issuer.jwksBehavior = 'error';
    const verifier = createIdentityVerifier({
      issuer: issuer.issuer,
      jwksUrl: issuer.jwksUrlA,
      retryAfterFailureMs: 300,
    });
    const token = await signA();
    const before = issuer.requests;
    await expectRejected(verifier, token, 'issuer keys unavailable');
    issuer.jwksBehavior = 'ok';
    await expectRejected(verifier, token, 'issuer keys unavailable');
    expect(issuer.requests - before).toBe(1);
    clock.advance(299);
    await expectRejected(verifier, token, 'issuer keys unavailable'); // the last millisecond of the pause
    expect(issuer.requests - before).toBe(1);
    clock.advance(1);
    await expect(verifier.verify(token)).resolves.toBeTruthy();
    expect(issuer.requests - before).toBe(2);
  });

  it('keys past their age are still used while the issuer cannot be reached', async () => {
    const clock = stopTheClock();
    const verifier = createIdentityVerifier({
      issuer: issuer.issuer,
      jwksUrl: issuer.jwksUrlA,
      jwksMaxAgeMs: 50,
    });
    const token = await signA();
    await verifier.verify(token);
    issuer.jwksBehavior = 'error';
    clock.advance(51);
    const before = issuer.requests;
    await expect(verifier.verify(token)).resolves.toBeTruthy(); // refresh failed: the held keys answer
    await expect(verifier.verify(token)).resolves.toBeTruthy(); // within the retry pause: no fetch
    expect(issuer.requests - before).toBe(1);
    await expectRejected(verifier, await signA({ foreignKey: true }), 'unknown signing key');
  });
});

describe('claims to repositories', () => {
  it('GitHub: a missing or malformed repository claim is refused', () => {
    for (const repository of [undefined, 42, '', 'octo', 'octo/hello/x', '../x', 'octo/he llo']) {
      expect(() => repositoryFromCodehostA({ ...claimsA, repository })).toThrow(
        expect.objectContaining({ reason: 'malformed repository claim' }),
      );
    }
  });

  it('GitHub: only public, private and internal; anything else counts as private', () => {
    for (const visibility of ['public', 'private', 'internal'] as const) {
      expect(repositoryFromCodehostA({ ...claimsA, repository_visibility: visibility }).visibility).toBe(
        visibility,
      );
    }
    for (const visibility of [undefined, 'PUBLIC', 'secret', true]) {
      expect(repositoryFromCodehostA({ ...claimsA, repository_visibility: visibility }).visibility).toBe(
        'private',
      );
    }
  });

  it('GitLab: a missing or malformed project_path is refused', () => {
    for (const project_path of [undefined, 7, '', 'proj', 'group//proj', 'group/proj.git']) {
      expect(() => projectFromCodehostB({ ...claimsB, project_path })).toThrow(
        expect.objectContaining({ reason: 'malformed project claim' }),
      );
    }
  });

  it('GitLab: an unrecognized project_visibility is unknown (null), to be asked of the API', () => {
    expect(projectFromCodehostB({ ...claimsB, project_visibility: 'public' }).visibility).toBe('public');
    expect(projectFromCodehostB({ ...claimsB, project_visibility: 'Public' }).visibility).toBeNull();
  });
});
