import { Hono } from 'hono';
import { type AgentFormat, agentA, agentB, OTHER_TOOL } from '../../hooks/agents/agents.js';
import { DECISION_BUDGET_MS } from '../../hooks/decide.js';
import { databaseOutageReason, loggableName } from '../../services/errors.js';
import type { AppDeps } from '../deps.js';
import { readBodyLimited } from '../request-body.js';

/** Hook inputs are a few kilobytes; anything past this is not read (and the command not checked). */
export const MAX_HOOK_BODY_BYTES = 1 << 20;

/**
 * The most a hook answer takes, whatever the database and the registries do: well inside the
 * client's 15 s curl limit and the product's 5 s promise. Past it the command is allowed, saying so.
 */
export const HOOK_BUDGET_MS = 4500;
/** Kept back from the registries' budget for storing the decision and answering. */
const ANSWER_MARGIN_MS = 300;

export type HookVariables = { rateLimitedFor?: number };
type HookBindings = { incoming?: unknown };

/**
 * POST /api/hooks/agent-a and /api/hooks/agent-b (README: "Guarding coding agents"). Never in the way:
 * every failure (a wrong key, a malformed or oversized body, a rate limit, an error of ours) answers
 * the agent's fail-open answer (Cursor: allow; Claude Code: no decision at all), with a message saying
 * the command was not checked and why.
 */
export function hooksRoute(deps: AppDeps) {
  const route = new Hono<{ Bindings: HookBindings; Variables: HookVariables }>();
  for (const [path, agent, id] of [
    ['/agent-a', agentA, 'a'],
    ['/agent-b', agentB, 'b'],
  ] as const) {
    route.post(path, async (c) => {
      const allow = (why: string) => c.json(agent.notChecked(why));
      const deadline = Date.now() + HOOK_BUDGET_MS;
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<Response>((resolve) => {
        timer = setTimeout(() => resolve(allow('the check did not finish in time')), HOOK_BUDGET_MS);
      });
      const judged = (async () => {
        const limited = c.get('rateLimitedFor');
        if (limited !== undefined) return allow(`rate limited; checks resume in ${limited} s`);
        const principal = await deps.principals.lookup(c.req.header('authorization'));
        if (principal === 'missing') return allow('no API key was sent');
        if (principal === 'invalid') return allow('the API key was not accepted');
        const body = await readBodyLimited(c.req.raw, c.env?.incoming, MAX_HOOK_BODY_BYTES);
        if (body === null) return allow(`the hook input is larger than ${MAX_HOOK_BODY_BYTES} bytes`);
        const command = commandIn(agent, body);
        if (command === null) return allow('the hook input holds no shell command');
        if (command === OTHER_TOOL) return c.json(agent.answer('allow', 'svc: not a shell command', false));

        // A team member always gets the team's mode; others choose with ?mode=warn or X-Svc-Mode.
        const warn = c.req.query('mode') === 'warn' || c.req.header('x-svc-mode') === 'warn';
        const budgetMs = Math.min(DECISION_BUDGET_MS, deadline - Date.now() - ANSWER_MARGIN_MS);
        const decision = await deps.hookChecks.check(principal, {
          command,
          requestedMode: warn ? 'warn' : undefined,
          agent: id,
          budgetMs: Math.max(0, budgetMs),
        });
        return c.json(agent.answer(decision.decision, decision.message, decision.installs.length > 0));
      })().catch((e: unknown) => {
        const outage = databaseOutageReason(e);
        if (outage !== null) {
          deps.logger.warn({ reason: outage, agent: id }, 'hook allowed: database unavailable');
          return allow("the service's database is unavailable");
        }
        deps.logger.error({ error: loggableName(e), agent: id }, 'hook failed; allowed');
        return allow('an internal error of the service');
      });
      try {
        return await Promise.race([judged, late]);
      } finally {
        clearTimeout(timer);
      }
    });
  }
  return route;
}

function commandIn(agent: AgentFormat, body: string): ReturnType<AgentFormat['commandOf']> {
  try {
    return agent.commandOf(JSON.parse(body));
  } catch {
    return null;
  }
}
