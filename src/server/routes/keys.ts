import { Hono } from 'hono';
import type { KeySummary } from '../../services/api-keys.js';
import type { AppDeps } from '../deps.js';
import type { AuthVariables } from '../middleware/authenticate.js';
import { jsonBody } from './json-body.js';

const presented = (k: KeySummary) => ({
  prefix: k.prefix,
  name: k.name,
  createdAt: k.createdAt.toISOString(),
  lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
});

/** `/api/keys` (contract 6): the caller's own keys; a new key is in the create answer only. */
export function keysRoute(deps: AppDeps) {
  return new Hono<{ Variables: AuthVariables }>()
    .get('/', async (c) => c.json({ keys: (await deps.apiKeys.list(c.get('principal'))).map(presented) }))
    .post('/', async (c) => {
      const body = await jsonBody(c);
      const name = typeof body.name === 'string' ? body.name : undefined;
      const { key, prefix, name: saved } = await deps.apiKeys.create(c.get('principal'), name);
      return c.json({ key, prefix, name: saved }, 201);
    })
    .delete('/:prefix', async (c) => {
      await deps.apiKeys.revoke(c.get('principal'), c.req.param('prefix'));
      return c.json({ revoked: c.req.param('prefix') });
    });
}
