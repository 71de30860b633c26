import type { HookSetup } from '../../services/hook-config.js';
import type { McpClientSetup } from '../../services/mcp-client-config.js';
import { CopyBlock, Layout } from '../layout.js';

export interface SetupProps {
  email: string;
  codehostAWorkflow: string;
  codehostBInclude: string;
  hooks: { a: HookSetup; b: HookSetup };
  mcp: { a: McpClientSetup; b: McpClientSetup };
}

/** What to paste where: the CI files, both agents' hook settings and MCP servers, with this service's URL. */
export function SetupPage(props: SetupProps) {
  const placeholder = props.hooks.a.keyPlaceholder;
  return (
    <Layout title="Setup" email={props.email} current="/dashboard/setup">
      <h1>Setup</h1>
      <p>
        Each snippet names this service. Where you see <code>{placeholder}</code>, put an API key from{' '}
        <a href="/dashboard/keys">API keys</a>; in CI, store it as the secret <code>SVC_API_KEY</code>.
      </p>
      <h2 class="section">CI</h2>
      <CopyBlock id="codehost-a" title="GitHub workflow" text={props.codehostAWorkflow} />
      <CopyBlock id="codehost-b" title="GitLab include" text={props.codehostBInclude} />
      <h2 class="section">Agent hooks</h2>
      <p class="muted">
        Checked before each shell command: package installs are allowed, refused or asked about.
      </p>
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
      <h2 class="section">MCP</h2>
      <p class="muted">
        Lets the agent ask svc itself: scan text for secrets, check a command or packages, scan a public
        repository.
      </p>
      {(['a', 'b'] as const).map((agent) => (
        <>
          {props.mcp[agent].command === null ? null : (
            <CopyBlock
              id={`mcp-${agent}-command`}
              title={`${props.mcp[agent].title}: command`}
              note={<p class="muted">Run once in a terminal; it writes the same entry as the JSON below.</p>}
              text={props.mcp[agent].command ?? ''}
            />
          )}
          <CopyBlock
            id={`mcp-${agent}`}
            title={props.mcp[agent].title}
            note={
              <p class="muted">
                Merge into <code>{props.mcp[agent].file}</code>.
              </p>
            }
            text={props.mcp[agent].json}
          />
        </>
      ))}
    </Layout>
  );
}
