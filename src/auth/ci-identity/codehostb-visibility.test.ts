import { createServer } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeIssuer, LATE_MS, type ProjectBehavior } from '../../../test/helpers/fake-oidc.js';
import { fetchProjectVisibility } from './codehostb-visibility.js';

let fake: FakeIssuer;
beforeAll(async () => {
  fake = await FakeIssuer.start();
});
afterAll(() => fake.stop());
afterEach(() => {
  fake.apiRequests.length = 0;
});

async function visibilityOf(behavior: ProjectBehavior, token?: string) {
  const projectPath = `group/sub/${behavior}`;
  fake.setProjectVisibility(projectPath, behavior);
  return fetchProjectVisibility({ apiUrl: fake.apiUrl, token, projectPath, timeoutMs: 300 });
}

describe('fetchProjectVisibility', () => {
  it.each<[ProjectBehavior, string | undefined, string | null]>([
    ['public', undefined, 'public'],
    ['public', 'fake-codehostb-api-token', 'public'],
    ['private', undefined, 'private'], // 404 to an anonymous caller
    ['private', 'fake-codehostb-api-token', 'private'], // 200 with visibility
    ['internal', undefined, 'private'], // 404 anonymously: not provably public
    ['internal', 'fake-codehostb-api-token', 'internal'],
    ['unauthorized', 'a-bad-token', 'private'],
    ['forbidden', undefined, 'private'],
    ['error', undefined, null],
    ['not-json', undefined, null],
    ['no-visibility', undefined, null],
    ['redirect', undefined, null],
  ])('%s (token %s) → %s', async (behavior, token, expected) => {
    expect(await visibilityOf(behavior, token)).toBe(expected);
  });

  it('an unknown project is a 404: private', async () => {
    await expect(
      fetchProjectVisibility({ apiUrl: fake.apiUrl, projectPath: 'nobody/nothing' }),
    ).resolves.toBe('private');
  });

  it('a server that never answers: null once the timeout passes', async () => {
    expect(await visibilityOf('hang')).toBeNull();
  });

  it('a server that answers after the configured timeout: null, not its late answer', async () => {
    // 'late' answers public after LATE_MS: before the 5 s default, after the configured 300 ms.
    // Null means the configured timeout ended the call (ordering, not elapsed time).
    expect(LATE_MS).toBeLessThan(5000);
    expect(await visibilityOf('late')).toBeNull();
  });

  it('a server that is down: null', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await expect(
      fetchProjectVisibility({ apiUrl: `http://127.0.0.1:${port}/api/v4`, projectPath: 'group/proj' }),
    ).resolves.toBeNull();
  });

  it('asks for the URL-encoded path, with PRIVATE-TOKEN only when one is configured', async () => {
    fake.setProjectVisibility('group/sub/proj.x', 'public');
    await fetchProjectVisibility({ apiUrl: `${fake.apiUrl}/`, projectPath: 'group/sub/proj.x' });
    await fetchProjectVisibility({ apiUrl: fake.apiUrl, token: 'tok', projectPath: 'group/sub/proj.x' });
    expect(fake.apiRequests).toEqual([
      { path: '/api/v4/projects/group%2Fsub%2Fproj.x', privateToken: undefined },
      { path: '/api/v4/projects/group%2Fsub%2Fproj.x', privateToken: 'tok' },
    ]);
  });
});
