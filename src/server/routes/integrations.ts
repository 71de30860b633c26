import { readFile } from 'node:fs/promises';
import { Hono } from 'hono';
import {
  CODEHOSTA_WORKFLOW_PATH,
  CODEHOSTB_TEMPLATE_PATH,
  codehostAWorkflow,
  servedCodehostBTemplate,
} from '../../services/ci-setup.js';
import type { AppDeps } from '../deps.js';

/** The generated GitLab template, shipped with the package (npm run build:integrations). */
const TEMPLATE_FILE = new URL('../../../integrations/gitlab/svc-secret-scan.gitlab-ci.yml', import.meta.url);

/**
 * The CI files a user includes from the service itself, with its base URL filled in. Public, like any
 * CI template: GitLab fetches an `include: remote:` without credentials.
 */
export function integrationsRoute(deps: AppDeps) {
  let template: Promise<string> | undefined;
  const yaml = { 'Content-Type': 'text/yaml; charset=utf-8', 'Cache-Control': 'public, max-age=300' };
  return new Hono()
    .get(CODEHOSTB_TEMPLATE_PATH, async (c) => {
      template ??= readFile(TEMPLATE_FILE, 'utf8');
      return c.body(servedCodehostBTemplate(await template, deps.config.baseUrl), 200, yaml);
    })
    .get(CODEHOSTA_WORKFLOW_PATH, (c) => c.body(codehostAWorkflow(deps.config.baseUrl), 200, yaml));
}
