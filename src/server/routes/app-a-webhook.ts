import { Hono } from 'hono';
import type { AppDeps } from '../deps.js';
import type { NodeBindings } from '../middleware/client-ip.js';
import { readBodyBytesLimited } from '../request-body.js';

/** The platform sends at most 25 MB in a delivery. */
export const MAX_DELIVERY_BYTES = 25 * 1024 * 1024;

/**
 * `POST /api/apps/codehost-a/webhook` (contract 8): the GitHub application's deliveries. The
 * route reads the raw body (the signature is over its bytes) and the three headers, and answers 202
 * with what became of the delivery; the service checks the signature before anything else. The
 * contract's neutral header names come first; the platform's own (`X-GitHub-*`) are read too, so
 * a real installation can point at the service directly.
 */
export function appWebhookRoute(deps: AppDeps) {
  return new Hono<{ Bindings: NodeBindings }>().post('/', async (c) => {
    const webhook = deps.appWebhook;
    if (webhook === undefined) {
      return c.json({ error: 'the GitHub application is not configured on this service' }, 404);
    }
    const body = await readBodyBytesLimited(c.req.raw, c.env?.incoming, MAX_DELIVERY_BYTES);
    if (body === null) return c.json({ error: 'delivery over 25 MiB' }, 413);
    const header = (neutral: string, platform: string) => c.req.header(neutral) ?? c.req.header(platform);
    const outcome = await webhook.receive({
      event: header('x-codehosta-event', 'x-github-event'),
      deliveryId: header('x-codehosta-delivery', 'x-github-delivery'),
      signature: c.req.header('x-hub-signature-256'),
      body,
    });
    return c.json(outcome, 202);
  });
}
