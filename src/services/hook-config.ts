import {
  type AgentId,
  API_KEY_PLACEHOLDER,
  ClientConfigError,
  HOOK_SETTINGS_FILE,
  hookClientConfig,
} from '../hooks/agents/client-config.js';
import { invalidInput } from './errors.js';

export interface HookSetup {
  agent: AgentId;
  /** The settings file the configuration goes into. */
  file: string;
  /** The JSON to merge into that file, with `keyPlaceholder` where the user's key goes. */
  config: Record<string, unknown>;
  keyPlaceholder: typeof API_KEY_PLACEHOLDER;
}

/**
 * The hook configuration `svc hooks config` prints, for someone who must not see a key (a model):
 * the same JSON, with a placeholder the user replaces with their key.
 */
export function hookSetupFor(agent: AgentId, windows: boolean, baseUrl: string): HookSetup {
  try {
    const config = hookClientConfig({ agent, key: API_KEY_PLACEHOLDER, baseUrl, windows }, () => baseUrl);
    return {
      agent,
      file: HOOK_SETTINGS_FILE[agent],
      config: config as Record<string, unknown>,
      keyPlaceholder: API_KEY_PLACEHOLDER,
    };
  } catch (e) {
    if (e instanceof ClientConfigError) throw invalidInput(`hook configuration: ${e.message}`);
    throw e;
  }
}
