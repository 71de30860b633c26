import { readdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/helpers/test-app.js';

const PASSWORD = 'correct horse battery';
const FORM = 'application/x-www-form-urlencoded';
const DAY = 24 * 60 * 60 * 1000;

let t: TestApp;
/** The app's clock: a test moves it to expire an invitation, and puts it back. */
let clock = new Date();
let n = 0;
/** A fresh email for each user a test makes: tests share the app, never a user. */
const fresh = (name: string) => `${name}-${++n}@example.com`;

beforeAll(async () => {
  t = await startTestApp({ now: () => clock, rateLimits: { auth: 10_000 } });
});
afterAll(() => t?.cleanup());

const signUp = (email: string) => t.session(email, PASSWORD);
const get = async (path: string, cookie?: string) => {
  const res = await t.request(path, { headers: { accept: 'text/html', ...(cookie ? { cookie } : {}) } });
  return { status: res.status, html: await res.text(), headers: res.headers };
};
const post = async (
  path: string,
  cookie: string,
  fields: Record<string, string> = {},
  origin = t.config.baseUrl,
) => {
  const res = await t.request(path, {
    headers: { 'content-type': FORM, accept: 'text/html', cookie, origin },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: res.status, html: await res.text(), location: res.headers.get('location') };
};
const teamOf = async (email: string) => {
  const user = await t.db.storage.accounts.findUserByEmail(email);
  return user === null ? null : t.db.storage.accounts.findTeamOfUser(user.id);
};
const idOf = async (email: string) => String((await t.db.storage.accounts.findUserByEmail(email))?.id);

/** A signed-in owner of a new team. */
async function owner(team = `team-${++n}`) {
  const email = fresh('owner');
  const cookie = await signUp(email);
  const created = await post('/dashboard/team', cookie, { name: team });
  expect(created).toMatchObject({ status: 303, location: '/dashboard/team?done=created' });
  return { email, cookie, team };
}

/** An invitation link made by the owner through the page; returns its token. */
async function invite(cookie: string): Promise<string> {
  const res = await post('/dashboard/team/invitations', cookie);
  expect(res.status).toBe(200);
  const token = /\/dashboard\/join\?token=([A-Za-z0-9_-]{43})</.exec(res.html)?.[1];
  expect(token).toBeDefined();
  return token as string;
}

/** A signed-in user who joined the owner's team through an invitation. */
async function member(ownerCookie: string) {
  const email = fresh('member');
  const cookie = await signUp(email);
  const token = await invite(ownerCookie);
  expect((await post('/dashboard/join', cookie, { token })).location).toBe('/dashboard/team?done=joined');
  return { email, cookie };
}

describe('creating a team', () => {
  it('makes the creator its owner, on their own plan, in block mode', async () => {
    const email = fresh('paid');
    const cookie = await signUp(email);
    await t.services.accounts.setPlan(email, 'paid');
    const team = `paid-team-${n}`;
    expect((await post('/dashboard/team', cookie, { name: ` ${team} ` })).location).toBe(
      '/dashboard/team?done=created',
    );
    const page = await get('/dashboard/team?done=created', cookie);
    expect(page.html).toContain('Team created');
    expect(page.html).toContain(`Hook mode of ${team}<`);
    expect(page.html).toContain('Create invitation link');
    const api = await t.request('/api/team', { headers: { cookie } });
    expect(await api.json()).toMatchObject({
      team: {
        name: team,
        plan: 'paid',
        hookMode: 'block',
        role: 'owner',
        members: [{ email, role: 'owner' }],
      },
    });
    // A free user's team is on the free plan.
    const free = await owner();
    const freeApi = await t.request('/api/team', { headers: { cookie: free.cookie } });
    expect(await freeApi.json()).toMatchObject({ team: { name: free.team, plan: 'free' } });
  });

  it('refuses a taken name, a blank or invisible one, and a second team', async () => {
    const first = await owner();
    const other = await signUp(fresh('other'));
    const taken = await post('/dashboard/team', other, { name: first.team });
    expect(taken.status).toBe(409);
    expect(taken.html).toContain(`A team named &quot;${first.team}&quot; exists already`);
    expect(taken.html).toContain(`value="${first.team}"`);
    expect((await post('/dashboard/team', other, { name: '   ' })).status).toBe(400);
    const hidden = await post('/dashboard/team', other, { name: 'cr\u200bew' });
    expect(hidden.status).toBe(400);
    expect(hidden.html).toContain('invisible');
    expect((await post('/dashboard/team', other, { name: 'x'.repeat(65) })).status).toBe(400);
    const second = await post('/dashboard/team', first.cookie, { name: `${first.team}-2` });
    expect(second.status).toBe(409);
    expect(second.html).toContain('leave it first');
    // svc admin create-team holds names to the same rules.
    await expect(
      t.services.accounts.createTeam({ name: 'a\u202ebc', plan: 'free', hookMode: 'block' }),
    ).rejects.toMatchObject({ code: 'invalid-input' });
  });
});

describe('invitation links', () => {
  it('shows the link once; opening it only shows the team; Accept joins and uses it up', async () => {
    const o = await owner();
    const token = await invite(o.cookie);
    const listed = await get('/dashboard/team', o.cookie);
    expect(listed.html).not.toContain(token);
    expect(listed.html).toContain('Open invitations');
    expect(listed.html).toContain(o.email); // made by

    const email = fresh('colleague');
    const cookie = await signUp(email);
    const shown = await get(`/dashboard/join?token=${token}`, cookie);
    expect(shown.status).toBe(200);
    expect(shown.html).toContain(`${o.email} invited you to join <strong>${o.team}</strong>`);
    expect(shown.html).toContain(`Accept and join ${o.team}`);
    expect(await teamOf(email)).toBeNull(); // a GET never joins

    const accepted = await post('/dashboard/join', cookie, { token });
    expect(accepted.location).toBe('/dashboard/team?done=joined');
    expect((await teamOf(email))?.name).toBe(o.team);
    expect((await get('/dashboard/team', o.cookie)).html).not.toContain('Revoke invitation');

    const again = await post('/dashboard/join', await signUp(fresh('late')), { token });
    expect(again.status).toBe(404);
    expect(again.html).toContain('has been used already');
    const reopened = await get(`/dashboard/join?token=${token}`, cookie);
    expect(reopened.status).toBe(404);
    expect(reopened.html).toContain('has been used already');
  });

  it('opened signed out: sign-up comes back to the invitation, kept in a cookie, not in a redirect', async () => {
    const o = await owner();
    const token = await invite(o.cookie);
    const opened = await t.request(`/dashboard/join?token=${token}`, { headers: { accept: 'text/html' } });
    expect(opened.status).toBe(303);
    expect(opened.headers.get('location')).toBe('/auth/signin?note=invite');
    const kept = /svc_invitation=[^;]+/.exec(opened.headers.get('set-cookie') ?? '')?.[0] as string;
    expect(kept).toBe(`svc_invitation=${token}`);
    expect(opened.headers.get('set-cookie')).toContain('HttpOnly');
    expect((await get('/auth/signin?note=invite')).html).toContain('see your team invitation');

    const email = fresh('newcomer');
    const signedUp = await t.request('/auth/signup', {
      headers: { 'content-type': FORM, origin: t.config.baseUrl, cookie: kept },
      body: new URLSearchParams({ email, password: PASSWORD }).toString(),
    });
    expect(signedUp.status).toBe(303);
    expect(signedUp.headers.get('location')).toBe('/dashboard/join');
    const session = /svc_session=[^;]+/.exec(signedUp.headers.get('set-cookie') ?? '')?.[0] as string;
    const page = await t.request('/dashboard/join', { headers: { cookie: `${session}; ${kept}` } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain(`Accept and join ${o.team}`);
    expect(page.headers.get('set-cookie')).toMatch(/svc_invitation=;/); // forgotten once shown
    expect((await post('/dashboard/join', session, { token })).location).toBe('/dashboard/team?done=joined');
    expect((await teamOf(email))?.name).toBe(o.team);

    // Anything but a token-shaped value keeps nothing, and sign-in goes to the overview as always.
    const junk = await t.request('/dashboard/join?token=https://evil.example/', { headers: {} });
    expect(junk.headers.get('location')).toBe('/auth/signin');
    expect(junk.headers.get('set-cookie') ?? '').not.toContain('svc_invitation');
    const plain = await t.request('/auth/signup', {
      headers: { 'content-type': FORM, origin: t.config.baseUrl, cookie: 'svc_invitation=../../evil' },
      body: new URLSearchParams({ email: fresh('plain'), password: PASSWORD }).toString(),
    });
    expect(plain.headers.get('location')).toBe('/dashboard');
  });

  it('answers an expired, revoked or unknown link with a page saying so', async () => {
    const o = await owner();
    const cookie = await signUp(fresh('reader'));
    const expiring = await invite(o.cookie);
    const revoked = await invite(o.cookie);
    const listed = await get('/dashboard/team', o.cookie);
    const ids = [...listed.html.matchAll(/name="id" value="(\d+)"/g)].map((m) => m[1] as string);
    expect(ids).toHaveLength(2);
    // Newest first: the second link is the first row.
    expect(
      (await post('/dashboard/team/invitations/revoke', o.cookie, { id: ids[0] as string })).location,
    ).toBe('/dashboard/team?done=revoked');
    const gone = await get(`/dashboard/join?token=${revoked}`, cookie);
    expect(gone.status).toBe(404);
    expect(gone.html).toContain('was revoked');
    expect((await post('/dashboard/join', cookie, { token: revoked })).status).toBe(404);

    const unknown = await get(`/dashboard/join?token=${'A'.repeat(43)}`, cookie);
    expect(unknown.status).toBe(404);
    expect(unknown.html).toContain('not valid');
    expect((await get('/dashboard/join?token=short', cookie)).status).toBe(404);
    expect((await get('/dashboard/join', cookie)).status).toBe(404);

    const saved = clock;
    clock = new Date(saved.getTime() + 7 * DAY);
    try {
      const late = await get(`/dashboard/join?token=${expiring}`, cookie);
      expect(late.status).toBe(404);
      expect(late.html).toContain('has expired');
      expect((await post('/dashboard/join', cookie, { token: expiring })).status).toBe(404);
      expect((await get('/dashboard/team', o.cookie)).html).toContain('None.');
    } finally {
      clock = saved;
    }
  });

  it('refuses a user who is in a team already, saying to leave first', async () => {
    const a = await owner();
    const b = await owner();
    const token = await invite(a.cookie);
    const shown = await get(`/dashboard/join?token=${token}`, b.cookie);
    expect(shown.status).toBe(200);
    expect(shown.html).toContain(`You are in the team ${b.team}`);
    expect(shown.html).not.toContain('Accept and join');
    const refused = await post('/dashboard/join', b.cookie, { token });
    expect(refused.status).toBe(409);
    expect(refused.html).toContain('leave it on the Team page first');
    expect((await teamOf(b.email))?.name).toBe(b.team);
    // The link was not used up by the refusal.
    expect((await get(`/dashboard/join?token=${token}`, await signUp(fresh('next')))).status).toBe(200);
  });

  it('keeps the raw token out of the database and the logs', async () => {
    const o = await owner();
    const token = await invite(o.cookie);
    const cookie = await signUp(fresh('joiner'));
    await get(`/dashboard/join?token=${token}`, cookie);
    await t.request(`/dashboard/join?token=${token}`); // signed out: the cookie's redirect
    await post('/dashboard/join', cookie, { token });
    await new Promise((r) => setTimeout(r, 50)); // log lines are written asynchronously
    const dir = dirname(t.db.url.slice('sqlite:'.length));
    const files = readdirSync(dir).map((f) => readFileSync(`${dir}/${f}`).toString('latin1'));
    expect(files.length).toBeGreaterThan(0);
    const logs = t.logs.join('\n');
    expect(logs).toContain('/dashboard/join');
    for (const content of [...files, logs]) expect(content.includes(token)).toBe(false);
  });
});

describe('members', () => {
  it('an owner makes a member an owner and removes a member after a confirmation page', async () => {
    const o = await owner();
    const m1 = await member(o.cookie);
    const m2 = await member(o.cookie);
    const made = await post('/dashboard/team/owners', o.cookie, { member: await idOf(m1.email) });
    expect(made.location).toBe('/dashboard/team?done=owner');
    expect((await get('/dashboard/team', m1.cookie)).html).toContain('Create invitation link');

    const confirm = await get(`/dashboard/team/remove?member=${await idOf(m2.email)}`, o.cookie);
    expect(confirm.status).toBe(200);
    expect(confirm.html).toContain(`Remove ${m2.email} from ${o.team}?`);
    expect(confirm.html).toContain('href="/dashboard/team">Cancel');
    expect((await teamOf(m2.email))?.name).toBe(o.team); // the GET removed nobody
    // A post without the confirmation's field only asks again.
    const unconfirmed = await post('/dashboard/team/remove', o.cookie, { member: await idOf(m2.email) });
    expect(unconfirmed.status).toBe(200);
    expect(unconfirmed.html).toContain(`Remove ${m2.email} from ${o.team}?`);
    expect((await teamOf(m2.email))?.name).toBe(o.team);
    const removed = await post('/dashboard/team/remove', o.cookie, {
      member: await idOf(m2.email),
      confirm: '1',
    });
    expect(removed.location).toBe('/dashboard/team?done=removed');
    expect(await teamOf(m2.email)).toBeNull();
    // Another owner can be removed by an owner too; oneself cannot (one leaves).
    const self = await post('/dashboard/team/remove', o.cookie, {
      member: await idOf(o.email),
      confirm: '1',
    });
    expect(self.status).toBe(400);
    expect(self.html).toContain('leave the team instead');
    expect((await post('/dashboard/team/remove', o.cookie, { member: '999999', confirm: '1' })).status).toBe(
      404,
    );
    expect((await post('/dashboard/team/remove', o.cookie, { member: 'x', confirm: '1' })).status).toBe(404);
  });

  it('forbids members what only owners do, at the HTTP level', async () => {
    const o = await owner();
    const m = await member(o.cookie);
    const target = await idOf(o.email);
    for (const [path, fields] of [
      ['/dashboard/team/invitations', {}],
      ['/dashboard/team/invitations/revoke', { id: '1' }],
      ['/dashboard/team/owners', { member: target }],
      ['/dashboard/team/remove', { member: target, confirm: '1' }],
      ['/dashboard/team/mode', { mode: 'warn' }],
    ] as const) {
      const res = await post(path, m.cookie, fields);
      expect([path, res.status]).toEqual([path, 403]);
      expect(res.html).toContain('Only a team owner can');
    }
    expect((await get(`/dashboard/team/remove?member=${target}`, m.cookie)).status).toBe(403);
    const page = await get('/dashboard/team', m.cookie);
    expect(page.html).not.toContain('Create invitation link');
    expect(page.html).not.toContain('Make owner');
    expect((await teamOf(o.email))?.name).toBe(o.team);
  });

  it('refuses every team action from another origin', async () => {
    const o = await owner();
    const m = await member(o.cookie);
    const token = await invite(o.cookie);
    const outsiderEmail = fresh('outsider');
    const outsider = await signUp(outsiderEmail);
    const evil = 'https://evil.example';
    expect((await post('/dashboard/join', outsider, { token }, evil)).status).toBe(403);
    expect(await teamOf(outsiderEmail)).toBeNull();
    expect(
      (await post('/dashboard/team/remove', o.cookie, { member: await idOf(m.email) }, evil)).status,
    ).toBe(403);
    expect(
      (await post('/dashboard/team/owners', o.cookie, { member: await idOf(m.email) }, evil)).status,
    ).toBe(403);
    expect((await post('/dashboard/team/leave', m.cookie, { confirm: '1' }, evil)).status).toBe(403);
    expect((await post('/dashboard/team/invitations', o.cookie, {}, evil)).status).toBe(403);
    expect((await post('/dashboard/team', outsider, { name: 'evil-team' }, evil)).status).toBe(403);
    expect((await teamOf(m.email))?.name).toBe(o.team);
    // The invitation is still there for its rightful user.
    expect((await get(`/dashboard/join?token=${token}`, outsider)).status).toBe(200);
  });

  it('the last owner cannot leave while others remain; the last member leaving deletes the team', async () => {
    const o = await owner();
    const m = await member(o.cookie);
    expect((await get('/dashboard/team', o.cookie)).html).toContain('You are its only owner');
    const confirm = await get('/dashboard/team/leave', o.cookie);
    expect(confirm.html).toContain(`Leave ${o.team}?`);
    const refused = await post('/dashboard/team/leave', o.cookie, { confirm: '1' });
    expect(refused.status).toBe(409);
    expect(refused.html).toContain('make another member an owner first');
    expect((await teamOf(o.email))?.name).toBe(o.team);

    // A member leaves.
    expect((await post('/dashboard/team/leave', m.cookie, { confirm: '1' })).location).toBe(
      '/dashboard/team?done=left',
    );
    expect(await teamOf(m.email)).toBeNull();
    const left = await get('/dashboard/team?done=left', m.cookie);
    expect(left.html).toContain('You left the team');
    expect(left.html).toContain('Create a team');

    // Now alone: leaving deletes the team (and its open invitations); the name is free again.
    const pending = await invite(o.cookie);
    expect((await get('/dashboard/team/leave', o.cookie)).html).toContain('leaving deletes the team');
    expect((await post('/dashboard/team/leave', o.cookie, { confirm: '1' })).location).toBe(
      '/dashboard/team?done=deleted',
    );
    expect(await t.db.storage.accounts.findTeamByName(o.team)).toBeNull();
    expect((await get(`/dashboard/join?token=${pending}`, m.cookie)).status).toBe(404);
    expect((await post('/dashboard/team', m.cookie, { name: o.team })).status).toBe(303);
  });
});
