// npm run build:integrations: writes integrations/gitlab/svc-secret-scan.gitlab-ci.yml, the template
// GitLab users `include`, with integrations/ci-scan.sh embedded (an included template cannot
// bring files of its own). A test fails when the committed template is not what this writes.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

export function gitlabTemplate() {
  const script = readFileSync(join(root, 'integrations', 'ci-scan.sh'), 'utf8');
  const indented = script
    .split('\n')
    .map((line) => (line === '' ? '' : `      ${line}`))
    .join('\n');
  return `# svc secret scan for GitLab CI. Generated from integrations/ci-scan.sh by
# npm run build:integrations; do not edit by hand.
#
#   include:
#     - remote: https://<your svc service>/integrations/gitlab/svc-secret-scan.gitlab-ci.yml
#   variables:
#     SVC_BASE_URL: https://<your svc service>
#   # and SVC_API_KEY as a masked CI/CD variable
svc-secret-scan:
  stage: test
  image: buildpack-deps:bookworm-scm
  variables:
    GIT_DEPTH: "0"
    SVC_PLATFORM: b
    SVC_NO_VERIFY: "false"
    SVC_SARIF: ""
    SVC_CACHE: .svc-cache/scan.cache
  # The incremental-scan cache (commit ids found clean). It can only make the scanner skip commits,
  # so a poisoned one could hide findings: it is keyed by project and branch, new branches start from
  # the default branch's, and GitLab keeps protected branches' caches apart from the others' ("Use
  # separate caches for protected branches", on by default): an unprotected branch or a fork's merge
  # request cannot write a cache a protected branch reads.
  cache:
    key: svc-scan-v1-$CI_PROJECT_ID-$CI_COMMIT_REF_SLUG
    fallback_keys:
      - svc-scan-v1-$CI_PROJECT_ID-$CI_DEFAULT_BRANCH
    paths:
      - .svc-cache/
    when: always
  id_tokens:
    SVC_ID_TOKEN:
      aud: svc
  script:
    - |
${indented}
  artifacts:
    when: always
    paths:
      - svc-report.md
    reports:
      secret_detection: gl-secret-detection-report.json
`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(join(root, 'integrations', 'gitlab', 'svc-secret-scan.gitlab-ci.yml'), gitlabTemplate());
  console.log('wrote integrations/gitlab/svc-secret-scan.gitlab-ci.yml');
}
