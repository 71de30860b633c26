/**
 * What a user adds to their CI to run svc, with this service's own URL filled in: the GitHub
 * workflow and the GitLab include, and the GitLab template as the service serves it.
 * Shown by the service (GET /integrations/...) and, later, the dashboard's setup page.
 */

/** The path the service serves the GitLab template at (the `include: remote:` URL). */
export const CODEHOSTB_TEMPLATE_PATH = '/integrations/gitlab/svc-secret-scan.gitlab-ci.yml';
/** The path the service serves the GitHub workflow at. */
export const CODEHOSTA_WORKFLOW_PATH = '/integrations/github/secrets.yml';

const PLACEHOLDER = 'https://<your svc service>';

const trimmed = (baseUrl: string) => baseUrl.replace(/\/+$/, '');

/** A GitHub workflow that scans every push and pull request (`.github/workflows/secrets.yml`). */
export function codehostAWorkflow(baseUrl: string): string {
  return `# .github/workflows/secrets.yml
name: secrets
on: [push, pull_request]
permissions:
  contents: read
  id-token: write        # the identity token (audience svc) that proves which repository this is
jobs:
  svc:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0   # the full history: a shallow clone hides old commits
      - uses: svc-security/svc@v1
        with:
          api-key: \${{ secrets.SVC_API_KEY }}
          base-url: ${trimmed(baseUrl)}
`;
}

/** The lines of a GitLab `.gitlab-ci.yml` that include the template from this service. */
export function codehostBInclude(baseUrl: string): string {
  return `# .gitlab-ci.yml (and SVC_API_KEY as a masked, protected CI/CD variable)
include:
  - remote: ${trimmed(baseUrl)}${CODEHOSTB_TEMPLATE_PATH}
`;
}

/**
 * The GitLab template as served: its placeholders name this service, and the job defaults
 * `SVC_DEFAULT_BASE_URL` to it, which the script uses when the user set no `SVC_BASE_URL` of their own
 * (a job variable would override the user's top-level one; a default does not).
 */
export function servedCodehostBTemplate(template: string, baseUrl: string): string {
  const base = trimmed(baseUrl);
  const filled = template.split(PLACEHOLDER).join(base);
  const jobVariables = /^( {2})variables:\n/m;
  if (!jobVariables.test(filled)) return filled;
  return filled.replace(
    jobVariables,
    (line, indent: string) => `${line}${indent}${indent}SVC_DEFAULT_BASE_URL: ${JSON.stringify(base)}\n`,
  );
}
