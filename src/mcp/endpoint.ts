import {
  createMcpHandler,
  isLegacyRequest,
  type McpRequestContext,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { Hono } from 'hono';
import type { Logger } from 'pino';
import { clientIp, type NodeBindings } from '../server/middleware/client-ip.js';
import { RATE_LIMITS, type RateLimiters } from '../server/rate-limits.js';
import { readBodyLimited } from '../server/request-body.js';
import { DomainError, loggableName } from '../services/errors.js';
import type { HookCheckService } from '../services/hook-checks.js';
import type { PrincipalService } from '../services/principals.js';
import type { ScanService } from '../services/scans.js';
import type { Principal } from '../services/vocabulary.js';
import { directToolCall } from './direct-call.js';
import { createMcpServer } from './server.js';
import type { ToolContext } from './tools/context.js';

export interface McpDeps {
  config: { baseUrl: string; trustProxy: number };
  logger: Logger;
  principals: PrincipalService;
  hookChecks: HookCheckService;
  scans: ScanService;
  rateLimiters: RateLimiters;
  /**
   * Whether a plain tools/call is answered without the SDK's per-request server (direct-call.ts);
   * on unless false. Off only in the test that holds both paths' answers equal.
   */
  directToolCalls?: boolean;
}

/**
 * The largest request body: scan_secrets takes 20 documents of 1 MiB, and JSON escaping adds to that
 * (a newline is two bytes, a control character six).
 */
export const MCP_MAX_BODY_BYTES = 32 * 1024 * 1024;

/** A body longer than this is parsed in an event-loop turn of its own. */
const YIELD_BEFORE_PARSE_CHARS = 1024 * 1024;

/** A JSON-RPC error with no request to answer (the body is not JSON, or not one request). */
const rpcError = (code: number, message: string) => ({ jsonrpc: '2.0', id: null, error: { code, message } });

/**
 * `POST /mcp`: MCP over streamable HTTP, stateless, answered in JSON. Every request carries the
 * caller's API key; a fresh server with the tools bound to that caller answers it. Requests of the
 * 2026-07-28 revision (a per-request envelope) go to the SDK's modern handler; 2025-era requests
 * (`initialize` first) to a stateless transport of their own, so that they too are answered in JSON.
 */
export function mcpRoute(deps: McpDeps) {
  const toolContext = (principal: Principal, ip: string): ToolContext => ({
    principal,
    hookChecks: deps.hookChecks,
    scans: deps.scans,
    baseUrl: deps.config.baseUrl,
    logger: deps.logger,
    // The dashboard's limit on scan starts, per IP, shared with POST /api/scans.
    async allowScanStart() {
      let decision: Awaited<ReturnType<RateLimiters['consume']>>;
      try {
        decision = await deps.rateLimiters.consume('scanStart', ip);
      } catch (e) {
        deps.logger.warn(
          { scope: 'scanStart', error: loggableName(e) },
          'rate limiter failed; request let through',
        );
        return;
      }
      if (!decision.allowed) {
        throw new DomainError(
          'quota-exhausted',
          `rate limit exceeded: ${RATE_LIMITS.scanStart} scan starts a minute; retry in ${decision.retryAfterSeconds} s`,
          decision.retryAfterSeconds,
        );
      }
    },
  });
  // The error's name only: the SDK's messages can quote the request, and a request can hold a secret.
  const onerror = (error: Error) => deps.logger.warn({ error: error.name }, 'mcp request refused');
  const modern = createMcpHandler(
    ({ authInfo }: McpRequestContext) =>
      createMcpServer(toolContext(authInfo?.extra?.principal as Principal, authInfo?.extra?.ip as string)),
    { legacy: 'reject', responseMode: 'auto', maxRequestBodySize: MCP_MAX_BODY_BYTES, onerror },
  );

  const route = new Hono<{ Bindings: NodeBindings; Variables: { principal: Principal } }>();
  route.use('*', async (c, next) => {
    try {
      c.set('principal', await deps.principals.authenticate(c.req.header('authorization')));
    } catch (e) {
      if (e instanceof DomainError && e.code === 'unauthenticated') {
        return c.json({ error: e.message }, 401, { 'WWW-Authenticate': 'Bearer' });
      }
      throw e;
    }
    return next();
  });
  route.on(['GET', 'DELETE'], '/', (c) =>
    c.json({ error: `${c.req.method} is not served: this endpoint is stateless, POST only` }, 405, {
      Allow: 'POST',
    }),
  );
  route.post('/', async (c) => {
    const text = await readBodyLimited(c.req.raw, c.env?.incoming, MCP_MAX_BODY_BYTES);
    if (text === null) return c.json({ error: 'request body over 32 MiB' }, 413);
    // Decoding a body of 20 MiB and parsing it are each tens of milliseconds on the event loop:
    // other requests (/livez, the hooks) get their turn between the two (contract 5: within 100 ms).
    if (text.length > YIELD_BEFORE_PARSE_CHARS) await new Promise((resolve) => setImmediate(resolve));
    let parsedBody: unknown;
    try {
      parsedBody = JSON.parse(text);
    } catch {
      return c.json(rpcError(-32700, 'Parse error: the body is not JSON'), 400);
    }
    // One HTTP request is one call (contract 5; MCP dropped batches in 2025-06-18): a batch was a
    // hundred tool calls counted as one request against the per-IP limit (issue 29). Refused whole,
    // before any of it runs.
    if (Array.isArray(parsedBody)) {
      return c.json(
        rpcError(-32600, 'Invalid Request: batches are not accepted; send one request per HTTP request'),
        400,
      );
    }
    const principal = c.get('principal');
    const ip = clientIp(c, deps.config.trustProxy);
    if (deps.directToolCalls !== false) {
      const answer = await directToolCall(
        parsedBody,
        {
          accept: c.req.header('accept'),
          contentType: c.req.header('content-type'),
          protocolVersion: c.req.header('mcp-protocol-version'),
          mcpMethod: c.req.header('mcp-method'),
          mcpName: c.req.header('mcp-name'),
        },
        toolContext(principal, ip),
      );
      if (answer !== null) return c.json(answer);
    }
    const request = c.req.raw;
    if (!(await isLegacyRequest(request, parsedBody))) {
      return modern.fetch(request, {
        parsedBody,
        authInfo: { token: '', clientId: String(principal.user.id), scopes: [], extra: { principal, ip } },
      });
    }
    const server = createMcpServer(toolContext(principal, ip));
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    transport.onerror = onerror;
    await server.connect(transport);
    try {
      return await transport.handleRequest(request, { parsedBody });
    } finally {
      // A JSON answer is complete once handleRequest returns: nothing of this instance is needed.
      await server.close();
    }
  });
  return route;
}
