import { beforeEach, describe, expect, it } from 'vitest';
import { DIALECTS, skipDialect } from '../../../test/helpers/databases.js';
import { startTestApp, type TestApp } from '../../../test/helpers/test-app.js';

const PASSWORD = 'correct horse battery';

const skipped = new Map(
  await Promise.all(DIALECTS.map(async (d) => [d, await skipDialect(d, 'dashboard API tests')] as const)),
);

for (const dialect of DIALECTS)
  describe.skipIf(skipped.get(dialect))(
    `/api/keys and /api/team, by key or by session, on ${dialect}`,
    () => {
      let t: TestApp;
      let cookie: string;

      beforeEach(async () => {
        t = await startTestApp({ dialect });
        cookie = await t.session('ada@example.com', PASSWORD);
        return () => t.cleanup();
      });

      const json = (method: string, path: string, body: unknown, headers: Record<string, string>) =>
        t.request(path, {
          method,
          headers: { 'content-type': 'application/json', ...headers },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      const bySession = (extra: Record<string, string> = {}) => ({
        cookie,
        origin: t.config.baseUrl,
        ...extra,
      });

      it('creates a key once, lists it without the key, uses it, revokes it, and then it is refused', async () => {
        const created = await json('POST', '/api/keys', { name: 'ci' }, bySession());
        expect(created.status).toBe(201);
        const { key, prefix, name } = (await created.json()) as { key: string; prefix: string; name: string };
        expect(key).toMatch(/^svc_[0-9A-Za-z]{40}$/);
        expect(prefix).toBe(key.slice(0, 12));
        expect(name).toBe('ci');

        const account = await t.request('/api/account', { key });
        expect(account.status).toBe(200);
        expect(await account.json()).toMatchObject({ email: 'ada@example.com', key: { prefix } });

        const listed = await t.request('/api/keys', { headers: { cookie } });
        const body = await listed.text();
        expect(body).not.toContain(key);
        expect(JSON.parse(body)).toMatchObject({
          keys: [{ prefix, name: 'ci', lastUsedAt: expect.any(String) }],
        });

        // By key: no Origin needed.
        const revoked = await t.request(`/api/keys/${prefix}`, { method: 'DELETE', key });
        expect(revoked.status).toBe(200);
        expect((await t.request('/api/account', { key })).status).toBe(401);
        expect(await (await t.request('/api/keys', { headers: { cookie } })).json()).toEqual({ keys: [] });
      });

      it('creates keys by session only: a bearer key gets 403, may list keys, and revokes only itself', async () => {
        const made = async () =>
          (await (await json('POST', '/api/keys', { name: 'ci' }, bySession())).json()) as {
            key: string;
            prefix: string;
          };
        const [first, second] = [await made(), await made()];
        const byKey = { authorization: `Bearer ${first.key}` };
        const refused = await json('POST', '/api/keys', { name: 'minted' }, byKey);
        expect(refused.status).toBe(403);
        expect(await refused.json()).toEqual({
          error: 'keys are created in the dashboard, signed in (spec 2.1): an API key cannot create keys',
        });
        const listed = await t.request('/api/keys', { key: first.key });
        expect(listed.status).toBe(200);
        const names = ((await listed.json()) as { keys: { prefix: string; name: string }[] }).keys;
        expect(names.map((k) => k.prefix)).toEqual([first.prefix, second.prefix]);
        // Another key of the same user: refused, and it keeps working.
        const other = await json('DELETE', `/api/keys/${second.prefix}`, undefined, byKey);
        expect(other.status).toBe(403);
        expect(await other.json()).toEqual({
          error: 'an API key can revoke only itself; revoke other keys in the dashboard',
        });
        expect((await t.request('/api/account', { key: second.key })).status).toBe(200);
        const itself = await json('DELETE', `/api/keys/${first.prefix}`, undefined, byKey);
        expect(itself.status).toBe(200);
        expect((await t.request('/api/account', { key: first.key })).status).toBe(401);
        // Only the two keys made by session exist.
        const left = (await (await t.request('/api/keys', { headers: { cookie } })).json()) as {
          keys: { prefix: string }[];
        };
        expect(left.keys.map((k) => k.prefix)).toEqual([second.prefix]);
      });

      it('refuses a state-changing session request without the service own Origin, changing nothing', async () => {
        for (const headers of [
          { cookie },
          bySession({ origin: 'https://evil.example' }),
          bySession({ origin: 'null' }),
        ]) {
          const res = await json('POST', '/api/keys', { name: 'x' }, headers);
          expect(res.status).toBe(403);
          expect(await res.json()).toEqual({
            error: 'cross-origin request refused: send it from the dashboard, or use an API key',
          });
        }
        expect(await (await t.request('/api/keys', { headers: { cookie } })).json()).toEqual({ keys: [] });
        // A form post to the dashboard is held to the same rule.
        const page = await t.request('/dashboard/keys', {
          headers: {
            cookie,
            origin: 'https://evil.example',
            'content-type': 'application/x-www-form-urlencoded',
          },
          body: 'name=x',
        });
        expect(page.status).toBe(403);
        expect(await (await t.request('/api/keys', { headers: { cookie } })).json()).toEqual({ keys: [] });
      });

      it('answers unknown, revoked, malformed and foreign key prefixes clearly', async () => {
        const { prefix } = (await (await json('POST', '/api/keys', {}, bySession())).json()) as {
          prefix: string;
        };
        const del = (p: string) => json('DELETE', `/api/keys/${p}`, undefined, bySession());
        expect((await del('svc_AAAAAAAA')).status).toBe(404);
        expect(await (await del('svc_AAAAAAAA')).json()).toEqual({
          error: 'you have no active key svc_AAAAAAAA',
        });
        expect((await del('nonsense')).status).toBe(400);
        // Someone else's key is not found for this user, and stays active.
        const bobKey = await t.userWithKey('bob@example.com');
        expect((await del(bobKey.slice(0, 12))).status).toBe(404);
        expect((await t.request('/api/account', { key: bobKey })).status).toBe(200);
        expect((await del(prefix)).status).toBe(200);
        expect((await del(prefix)).status).toBe(404);
        expect((await json('POST', '/api/keys', [1], bySession())).status).toBe(400);
        expect((await t.request('/api/keys')).status).toBe(401);
      });

      it('lets an owner switch the team mode, records who, and refuses a member (403) with nothing changed', async () => {
        await t.services.accounts.createTeam({ name: 'crew', plan: 'free', hookMode: 'block' });
        await t.services.accounts.addMember('crew', 'ada@example.com', 'owner');
        const memberKey = await t.userWithKey('bob@example.com', 'free', { name: 'crew', plan: 'free' });

        const denied = await json(
          'PUT',
          '/api/team/mode',
          { mode: 'warn' },
          { authorization: `Bearer ${memberKey}` },
        );
        expect(denied.status).toBe(403);
        expect(await denied.json()).toEqual({ error: 'only a team owner can change the hook mode' });
        expect((await t.db.storage.accounts.findTeamByName('crew'))?.hookMode).toBe('block');

        expect((await json('PUT', '/api/team/mode', { mode: 'loud' }, bySession())).status).toBe(400);
        const ok = await json('PUT', '/api/team/mode', { mode: 'warn' }, bySession());
        expect(ok.status).toBe(200);
        const seen = await t.request('/api/team', { key: memberKey });
        expect(await seen.json()).toMatchObject({
          team: {
            name: 'crew',
            hookMode: 'warn',
            hookModeSetBy: 'ada@example.com',
            role: 'member',
            members: [
              { email: 'ada@example.com', role: 'owner' },
              { email: 'bob@example.com', role: 'member' },
            ],
          },
        });
        const page = await (await t.request('/dashboard/team', { headers: { cookie } })).text();
        expect(page).toContain('Set by ada@example.com');
      });

      it('answers a user outside any team', async () => {
        expect(await (await t.request('/api/team', { headers: { cookie } })).json()).toEqual({ team: null });
        const res = await json('PUT', '/api/team/mode', { mode: 'warn' }, bySession());
        expect(res.status).toBe(404);
      });
    },
  );
