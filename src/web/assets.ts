import { createHash } from 'node:crypto';
import { Hono } from 'hono';
import { CLIENT_SCRIPT } from './client-script.js';
import { STYLESHEET } from './styles.js';

const version = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 12);

/** Asset paths carry a digest of their content, so they can be cached for good. */
export const ASSET_PATHS = {
  css: `/assets/svc-${version(STYLESHEET)}.css`,
  js: `/assets/svc-${version(CLIENT_SCRIPT)}.js`,
} as const;

/** The stylesheet and the script, served by the service itself (no CDN, no build step). */
export function assetsRoute() {
  const immutable = 'public, max-age=31536000, immutable';
  return new Hono()
    .get(ASSET_PATHS.css, (c) =>
      c.body(STYLESHEET, 200, { 'content-type': 'text/css; charset=utf-8', 'cache-control': immutable }),
    )
    .get(ASSET_PATHS.js, (c) =>
      c.body(CLIENT_SCRIPT, 200, {
        'content-type': 'text/javascript; charset=utf-8',
        'cache-control': immutable,
      }),
    );
}
