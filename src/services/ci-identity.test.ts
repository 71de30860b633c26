import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeIssuer } from '../../test/helpers/fake-oidc.js';
import { createIdentityServices, type IdentityServices } from '../auth/ci-identity/index.js';
import { type CiIdentityRequest, resolveCiIdentity } from './ci-identity.js';
import { DomainError } from './errors.js';

describe("a CI run's repository: GitHub token, then GitLab token, then codehostb_project, then repo", () => {
  let a: FakeIssuer;
  let b: FakeIssuer;
  let services: IdentityServices;
  beforeAll(async () => {
    [a, b] = await Promise.all([FakeIssuer.start(), FakeIssuer.start()]);
    services = createIdentityServices({
      a: { issuer: a.issuer, jwksUrl: a.jwksUrlA },
      b: { issuer: b.issuer, jwksUrl: b.jwksUrlB },
      codehostbApiUrl: b.apiUrl,
      codehostbToken: b.apiToken,
    });
  });
  afterAll(() => Promise.all([a.stop(), b.stop()]));

  const tokenA = () => a.sign({ repository: 'acme/from-a', repository_visibility: 'public' });
  const tokenB = () => b.sign({ project_path: 'group/from-b', project_visibility: 'private' });
  const none: CiIdentityRequest = {
    codehostAToken: undefined,
    codehostBToken: undefined,
    codehostbProject: undefined,
    repo: undefined,
  };

  it('takes each mechanism only when every one before it is absent', async () => {
    const all = {
      codehostAToken: await tokenA(),
      codehostBToken: await tokenB(),
      codehostbProject: 'group/self-b',
      repo: 'acme/self-a',
    };
    expect(await resolveCiIdentity(all, 'paid', services)).toEqual({
      platform: 'a',
      repository: 'acme/from-a',
      visibility: 'public',
      proven: true,
    });
    const noA = { ...all, codehostAToken: undefined };
    expect(await resolveCiIdentity(noA, 'paid', services)).toEqual({
      platform: 'b',
      repository: 'group/from-b',
      visibility: 'private',
      proven: true,
    });
    const selfOnly = { ...noA, codehostBToken: undefined };
    expect(await resolveCiIdentity(selfOnly, 'paid', services)).toEqual({
      platform: 'b',
      repository: 'group/self-b',
      visibility: null,
      proven: false,
    });
    const repoOnly = { ...selfOnly, codehostbProject: undefined };
    expect(await resolveCiIdentity(repoOnly, 'paid', services)).toEqual({
      platform: 'a',
      repository: 'acme/self-a',
      visibility: null,
      proven: false,
    });
  });

  const refusal = (request: CiIdentityRequest, plan: 'free' | 'paid' = 'paid') =>
    resolveCiIdentity(request, plan, services).then(
      () => null,
      (e: unknown) => (e instanceof DomainError ? { code: e.code, message: e.message } : e),
    );

  it('refuses a bad token of either platform, even when a later mechanism would do', async () => {
    const foreign = await b.sign({ repository: 'acme/x', repository_visibility: 'public' });
    expect(await refusal({ ...none, codehostAToken: foreign, repo: 'acme/app' })).toEqual({
      code: 'unauthenticated',
      message: expect.stringMatching(/^invalid GitHub identity token: /),
    });
    const badB = await a.sign({ project_path: 'group/x' });
    expect(await refusal({ ...none, codehostBToken: badB, codehostbProject: 'group/x' })).toEqual({
      code: 'unauthenticated',
      message: expect.stringMatching(/^invalid GitLab identity token: /),
    });
    expect(await refusal({ ...none, codehostBToken: 'not.a.jwt' })).toEqual({
      code: 'unauthenticated',
      message: 'invalid GitLab identity token: malformed token',
    });
  });

  it('needs a token on the Free plan, and a well-formed name on a paid one', async () => {
    expect(await refusal(none, 'free')).toMatchObject({
      code: 'invalid-input',
      message: expect.stringMatching(/identity token is required on the Free plan/),
    });
    expect(await refusal({ ...none, repo: 'acme/app' }, 'free')).toEqual({
      code: 'invalid-input',
      message: 'an identity token is required on the Free plan: self-reported repositories need a paid plan',
    });
    expect(await refusal(none)).toMatchObject({
      code: 'invalid-input',
      message: expect.stringMatching(/^repository missing/),
    });
    expect(await refusal({ ...none, repo: 'acme' })).toMatchObject({
      message: 'malformed repo: expected <owner>/<name>',
    });
    expect(await refusal({ ...none, codehostbProject: 'lonely' })).toMatchObject({
      message: 'malformed codehostb_project: expected <group>/<project>',
    });
  });

  it('refuses a valid token whose repository claim is missing or malformed as bad input', async () => {
    const noRepository = await a.sign({ repository_visibility: 'public' });
    expect(await refusal({ ...none, codehostAToken: noRepository })).toEqual({
      code: 'invalid-input',
      message: 'repository missing or malformed in the identity token: malformed repository claim',
    });
    const badProject = await b.sign({ project_path: 'no-group' });
    expect(await refusal({ ...none, codehostBToken: badProject })).toEqual({
      code: 'invalid-input',
      message: 'repository missing or malformed in the identity token: malformed project claim',
    });
  });

  it('lets an error that is not about the token through as it is (not a 401)', async () => {
    const outage = new Error('verifier broke');
    const broken: IdentityServices = {
      verifyCodehostA: () => Promise.reject(outage),
      verifyCodehostB: () => Promise.reject(outage),
      projectVisibility: async () => null,
    };
    for (const request of [
      { ...none, codehostAToken: 't' },
      { ...none, codehostBToken: 't' },
    ]) {
      await expect(resolveCiIdentity(request, 'paid', broken)).rejects.toBe(outage);
    }
  });
});
