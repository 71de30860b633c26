import { createHash } from 'node:crypto';
import { Hono } from 'hono';
import { CLIENT_SCRIPT } from './client-script.js';
import { STYLESHEET } from './styles.js';

/** The icon: a white shield on the accent blue, legible at 16 px and in a dark tab strip. */
const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">
<rect width="32" height="32" rx="7" fill="#1f55c4"/>
<path d="M16 5.5l8.5 3.2v6.4c0 5.6-3.6 9.9-8.5 11.4-4.9-1.5-8.5-5.8-8.5-11.4V8.7z" fill="#fff"/>
<path d="M12 15.8l3 3 5.5-6" fill="none" stroke="#1f55c4" stroke-width="2.4" stroke-linecap="round" stroke-linejoin="round"/>
</svg>
`;

const version = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 12);

/** Asset paths carry a digest of their content, so they can be cached for good. */
export const ASSET_PATHS = {
  css: `/assets/svc-${version(STYLESHEET)}.css`,
  js: `/assets/svc-${version(CLIENT_SCRIPT)}.js`,
  icon: `/assets/svc-${version(ICON)}.svg`,
} as const;

/**
 * The stylesheet, the script and the icon, served by the service itself (no CDN, no build step).
 * `/favicon.ico`, which browsers and other clients ask for on their own, is sent to the icon.
 */
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
    )
    .get(ASSET_PATHS.icon, (c) =>
      c.body(ICON, 200, { 'content-type': 'image/svg+xml; charset=utf-8', 'cache-control': immutable }),
    )
    .get('/favicon.ico', (c) => c.redirect(ASSET_PATHS.icon, 301));
}
