import type { HookSetup } from '../../services/hook-config.js';
import { CopyBlock, Layout } from '../layout.js';

export interface SetupProps {
  email: string;
  codehostAWorkflow: string;
  codehostBInclude: string;
  hooks: { a: HookSetup; b: HookSetup };
}

/** What to paste where: the CI files and both agents' hook settings, with this service's URL. */
export function SetupPage(props: SetupProps) {
  const placeholder = props.hooks.a.keyPlaceholder;
  return (
    <Layout title="Setup" email={props.email} current="/dashboard/setup">
      <h1>Setup</h1>
      <p>
        Each snippet names this service. Where you see <code>{placeholder}</code>, put an API key from{' '}
        <a href="/dashboard/keys">API keys</a>; in CI, store it as the secret <code>SVC_API_KEY</code>.
      </p>
      <CopyBlock id="codehost-a" title="GitHub workflow" text={props.codehostAWorkflow} />
      <CopyBlock id="codehost-b" title="GitLab include" text={props.codehostBInclude} />
      {(['a', 'b'] as const).map((agent) => (
        <CopyBlock
          id={`agent-${agent}`}
          title={agent === 'a' ? 'Cursor hook' : 'Claude Code hook'}
          note={
            <p class="muted">
              Merge into <code>{props.hooks[agent].file}</code>.
            </p>
          }
          text={JSON.stringify(props.hooks[agent].config, null, 2)}
        />
      ))}
    </Layout>
  );
}
