import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/helpers/test-app.js';

const TEMPLATE = join(
  import.meta.dirname,
  '..',
  '..',
  '..',
  'integrations',
  'gitlab',
  'svc-secret-scan.gitlab-ci.yml',
);

describe('CI files served by the service, with its own URL', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ baseUrl: 'https://svc.example.test/' });
  });
  afterAll(() => t.cleanup());

  it('serves the GitLab template at the include URL the docs give, without credentials', async () => {
    const r = await t.request('/integrations/gitlab/svc-secret-scan.gitlab-ci.yml');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/yaml/);
    const served = await r.text();
    expect(served).not.toContain('<your svc service>');
    expect(served).toContain(
      '- remote: https://svc.example.test/integrations/gitlab/svc-secret-scan.gitlab-ci.yml',
    );
    // The job defaults the URL; everything else is the template as generated, line for line.
    expect(served).toContain('\n    SVC_DEFAULT_BASE_URL: "https://svc.example.test"\n');
    const template = readFileSync(TEMPLATE, 'utf8');
    expect(
      served.split('\n').filter((l) => l !== '    SVC_DEFAULT_BASE_URL: "https://svc.example.test"'),
    ).toEqual(template.replaceAll('https://<your svc service>', 'https://svc.example.test').split('\n'));
  });

  it('serves the GitHub workflow with the identity-token permission and this base URL', async () => {
    const r = await t.request('/integrations/github/secrets.yml');
    expect(r.status).toBe(200);
    const workflow = await r.text();
    expect(workflow).toContain('  id-token: write');
    expect(workflow).toContain('          base-url: https://svc.example.test\n');
    expect(workflow).toContain('fetch-depth: 0');
  });
});
