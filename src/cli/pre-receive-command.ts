import {
  type Finding,
  type FindingVerifier,
  ignoreLineOf,
  isFailing,
  parseRefUpdates,
  RULE_TITLES,
  scanPush,
  shortCommit,
  visible,
} from '../scanner/index.js';
import { type CliIo, EXIT } from './io.js';

/**
 * `svc scan --pre-receive`: a git server's pre-receive hook (GitLab server hooks, Gitea, a bare
 * repository's hooks/pre-receive). Exit 1 refuses the push: git then tells the pusher everything
 * printed here, line by line after "remote:". Exit 0 lets it in; a damaged or partial history is
 * warned about, never a reason to refuse.
 */
export async function preReceive(
  path: string,
  input: string,
  io: CliIo,
  verify: FindingVerifier | undefined,
): Promise<number> {
  const scan = await scanPush(parseRefUpdates(input), {
    path,
    verify,
    onWarning: (message) => io.stderr.write(`svc: warning: ${message}\n`),
  });
  if (scan === null) return EXIT.passed;
  const failing = scan.result.findings.filter(isFailing);
  if (failing.length === 0) return EXIT.passed;
  io.stdout.write(refusal(failing, scan.refsOf));
  return EXIT.failed;
}

function refusal(failing: readonly Finding[], refsOf: ReadonlyMap<Finding, string[]>): string {
  const count = failing.length === 1 ? 'a secret' : `${failing.length} secrets`;
  const lines = [`svc: push refused: the commits it adds hold ${count} in code.`, ''];
  for (const f of failing) {
    const refs = refsOf.get(f) ?? [];
    lines.push(
      `  ${RULE_TITLES[f.ruleId]} (${f.ruleId}): ${visible(f.maskedValue)}`,
      `    ${visible(f.path)}:${f.line}, commit ${shortCommit(f.commit)} by ${visible(f.author)}` +
        (refs.length > 0 ? `, pushed to ${refs.map(visible).join(', ')}` : ''),
      `    ignore line: ${ignoreLineOf(f.fingerprint)}`,
    );
  }
  lines.push(
    '',
    'What to do:',
    '  1. Rotate the credential at its provider: it has left your machine with this push.',
    '  2. Remove it from the commits, not only from the files: a later commit that deletes it would',
    '     still add it to history. The last commit: edit the file, `git commit --amend`; an older one:',
    '     `git rebase -i`. Then push again.',
    '  3. Not a secret? Push its ignore line to .svcignore on the default branch first, on its own,',
    '     then push these commits again.',
    '',
  );
  return lines.join('\n');
}
