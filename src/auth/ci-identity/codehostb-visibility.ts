import { asVisibility, type Visibility } from './claims.js';

export interface ProjectVisibilityRequest {
  /** The GitLab API base, e.g. `https://gitlab.com/api/v4` (`SVC_CODEHOSTB_API_URL`). */
  apiUrl: string;
  /** Sent as `PRIVATE-TOKEN` when configured (`SVC_CODEHOSTB_TOKEN`); lets internal projects be seen. */
  token?: string | undefined;
  /** `group/sub/project`, as proven by the identity token. */
  projectPath: string;
  timeoutMs?: number;
}

/**
 * A GitLab project's visibility, for identity tokens that lack `project_visibility`.
 *
 * - 200 with a known `visibility` field: that value.
 * - 404, 401, 403: `private`. The API hides private (and, anonymously, internal) projects behind a 404,
 *   and a project the API will not show cannot be proven public; the Free plan must not be granted on a
 *   guess. (With a configured token, 401 means that token is bad: still not proof of a public project.)
 * - Anything else: null, unknown. Timeout, network error, 5xx, 429, a redirect (not followed, so the
 *   token goes only to the configured URL), a body that is not JSON or has no known `visibility`.
 *   The caller decides what unknown costs; it is never taken for public.
 */
export async function fetchProjectVisibility(request: ProjectVisibilityRequest): Promise<Visibility | null> {
  const { apiUrl, token, projectPath, timeoutMs = 5000 } = request;
  const url = `${apiUrl.replace(/\/+$/, '')}/projects/${encodeURIComponent(projectPath)}`;
  const headers: Record<string, string> = { accept: 'application/json' };
  if (token) headers['PRIVATE-TOKEN'] = token;
  try {
    // The signal bounds the whole exchange, the body included.
    const response = await fetch(url, {
      headers,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => {});
      return response.status === 404 || response.status === 401 || response.status === 403 ? 'private' : null;
    }
    const body: unknown = await response.json();
    return typeof body === 'object' && body !== null
      ? asVisibility((body as { visibility?: unknown }).visibility)
      : null;
  } catch {
    return null;
  }
}
