import { createPrivateKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { SignJWT } from 'jose';

/**
 * The service as an installed GitHub application: app JWTs, installation tokens (cached, shared by
 * concurrent callers) and the check-run calls, with the retry rules of one job. Only the HTTP exchanges;
 * what a check run says is decided by the caller.
 */
export interface AppApiOptions {
  /** `https://api.github.com`, a GHE `/api/v3` base, or a fake on loopback; a trailing slash is ignored. */
  apiUrl: string;
  appId: string;
  privateKey: KeyObject;
  /** Per attempt, default 10_000. */
  timeoutMs?: number;
  /** attempts in all (default 5); waits start at baseMs (default 1000), double, and stop at maxMs (30 s). */
  retry?: { attempts?: number; baseMs?: number; maxMs?: number };
  /** ms since the epoch, for token expiry and JWT times. */
  now?: () => number;
}

export interface RepositoryRef {
  owner: string;
  name: string;
}

export interface CheckRunAnnotation {
  path: string;
  start_line: number;
  end_line: number;
  annotation_level: 'notice' | 'warning' | 'failure';
  title?: string;
  message: string;
}

export interface CheckRunOutput {
  title: string;
  summary: string;
  text?: string;
  annotations?: CheckRunAnnotation[];
}

export interface CreateCheckRunBody {
  name: string;
  head_sha: string;
  status: 'queued' | 'in_progress' | 'completed';
  started_at?: string;
  conclusion?: string;
  completed_at?: string;
  output?: CheckRunOutput;
  external_id?: string;
}

export interface UpdateCheckRunBody {
  status?: string;
  conclusion?: string;
  completed_at?: string;
  output?: CheckRunOutput;
}

export interface AppApi {
  /** An installation token (cached, renewed 5 minutes before it expires). */
  installationToken(installationId: number, signal?: AbortSignal): Promise<string>;
  /** Forgets a cached token (the git server refused it); the next call gets a new one. */
  forgetToken(installationId: number): void;
  createCheckRun(
    installationId: number,
    repo: RepositoryRef,
    body: CreateCheckRunBody,
    signal?: AbortSignal,
  ): Promise<{ id: number }>;
  updateCheckRun(
    installationId: number,
    repo: RepositoryRef,
    checkRunId: number,
    body: UpdateCheckRunBody,
    signal?: AbortSignal,
  ): Promise<void>;
}

/**
 * A failure of a GitHub call, one line naming the operation and the status (null when no answer
 * came). Never a token, the JWT, the key or a response body: these messages end up in logs.
 */
export class AppApiError extends Error {
  override name = 'AppApiError';
  constructor(
    message: string,
    readonly status: number | null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_ATTEMPTS = 5;
const DEFAULT_BASE_MS = 1000;
const DEFAULT_MAX_MS = 30_000;
/** A token this close to its expiry is not handed out: a clone or a job may run for minutes with it. */
const RENEW_BEFORE_MS = 5 * 60_000;
/** GitHub refuses an app JWT whose exp is more than 10 minutes after its iat; iat is backdated for drift. */
const JWT_BACKDATE_S = 60;
const JWT_LIFETIME_S = 9 * 60;
const TOKEN_OPERATION = 'create installation token';

interface CachedToken {
  token: string;
  expiresAt: number;
}

/** One exchange several callers wait on; it is stopped only when every caller that can stop has. */
interface SharedExchange {
  promise: Promise<string>;
  controller: AbortController;
  waiters: number;
}

interface Attempt {
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  bearer: string;
  body?: unknown;
}

/** What one attempt came to: a parsed success, a status that failed, or no answer at all. */
type Outcome =
  | { kind: 'ok'; status: number; json: unknown }
  | { kind: 'status'; status: number; headers: Headers }
  | { kind: 'no-answer'; error: AppApiError };

export function createAppApi(options: AppApiOptions): AppApi {
  const apiUrl = options.apiUrl.replace(/\/+$/, '');
  const now = options.now ?? Date.now;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const attempts = Math.max(1, options.retry?.attempts ?? DEFAULT_ATTEMPTS);
  const baseMs = options.retry?.baseMs ?? DEFAULT_BASE_MS;
  const maxMs = options.retry?.maxMs ?? DEFAULT_MAX_MS;
  const cache = new Map<number, CachedToken>();
  const inFlight = new Map<number, SharedExchange>();

  async function attemptOnce(operation: string, attempt: Attempt, signal?: AbortSignal): Promise<Outcome> {
    const timeout = AbortSignal.timeout(timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    try {
      const response = await fetch(`${apiUrl}${attempt.path}`, {
        method: attempt.method,
        headers: requestHeaders(attempt),
        body: attempt.body === undefined ? undefined : JSON.stringify(attempt.body),
        redirect: 'manual',
        signal: combined,
      });
      if (response.status < 200 || response.status > 299) {
        // Failures' bodies are never read: only the status and headers decide, and nothing of them is kept.
        await response.body?.cancel().catch(() => {});
        return { kind: 'status', status: response.status, headers: response.headers };
      }
      return { kind: 'ok', status: response.status, json: await readJson(operation, response) };
    } catch (e) {
      if (e instanceof AppApiError) throw e;
      if (signal?.aborted) throw stopped(operation, signal);
      return { kind: 'no-answer', error: noAnswer(operation, e, timeout.aborted, timeoutMs) };
    }
  }

  /**
   * One call with the job's retry rules. `prepare` runs before every attempt so that a renewed or
   * re-cached token is picked up; `renew` (API calls only) drops the token a 401 refused, once.
   */
  async function send(
    operation: string,
    prepare: () => Promise<Attempt>,
    signal: AbortSignal | undefined,
    renew?: (refused: Attempt) => void,
  ): Promise<{ status: number; json: unknown }> {
    let failures = 0;
    let renewed = renew === undefined;
    for (;;) {
      if (signal?.aborted) throw stopped(operation, signal);
      const attempt = await prepare();
      const outcome = await attemptOnce(operation, attempt, signal);
      if (outcome.kind === 'ok') return outcome;
      if (outcome.kind === 'status' && outcome.status === 401 && !renewed) {
        renewed = true;
        renew?.(attempt);
        continue;
      }
      failures += 1;
      const error = outcome.kind === 'no-answer' ? outcome.error : answered(operation, outcome.status);
      if (!isRetryable(outcome) || failures >= attempts) throw error;
      await pause(backoffMs(outcome, failures, baseMs, maxMs), operation, signal);
    }
  }

  async function exchangeToken(installationId: number, signal: AbortSignal): Promise<string> {
    const { status, json } = await send(
      TOKEN_OPERATION,
      async () => ({
        method: 'POST',
        path: `/app/installations/${installationId}/access_tokens`,
        bearer: await appJwt(options.appId, options.privateKey, now()),
      }),
      signal,
    );
    const issued = parseIssuedToken(status, json);
    cache.set(installationId, issued);
    return issued.token;
  }

  function startExchange(installationId: number): SharedExchange {
    const controller = new AbortController();
    const shared: SharedExchange = {
      promise: exchangeToken(installationId, controller.signal),
      controller,
      waiters: 0,
    };
    shared.promise
      .catch(() => {})
      .finally(() => {
        if (inFlight.get(installationId) === shared) inFlight.delete(installationId);
      });
    inFlight.set(installationId, shared);
    return shared;
  }

  function join(installationId: number, shared: SharedExchange, signal?: AbortSignal): Promise<string> {
    shared.waiters += 1;
    if (signal === undefined) return shared.promise;
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        shared.waiters -= 1;
        if (shared.waiters === 0) {
          // Nobody waits any more: stop the exchange, and let the next caller start a fresh one.
          if (inFlight.get(installationId) === shared) inFlight.delete(installationId);
          shared.controller.abort();
        }
        reject(stopped(TOKEN_OPERATION, signal));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      shared.promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }

  async function installationToken(installationId: number, signal?: AbortSignal): Promise<string> {
    if (signal?.aborted) throw stopped(TOKEN_OPERATION, signal);
    const cached = cache.get(installationId);
    if (cached !== undefined && now() < cached.expiresAt - RENEW_BEFORE_MS) return cached.token;
    const shared = inFlight.get(installationId) ?? startExchange(installationId);
    return join(installationId, shared, signal);
  }

  function callAsInstallation(
    operation: string,
    installationId: number,
    request: Omit<Attempt, 'bearer'>,
    signal?: AbortSignal,
  ): Promise<{ status: number; json: unknown }> {
    return send(
      operation,
      async () => ({ ...request, bearer: await installationToken(installationId, signal) }),
      signal,
      (refused) => {
        // Only the token that was refused: a concurrent caller may already have cached its successor.
        if (cache.get(installationId)?.token === refused.bearer) cache.delete(installationId);
      },
    );
  }

  return {
    installationToken,
    forgetToken(installationId) {
      cache.delete(installationId);
    },
    async createCheckRun(installationId, repo, body, signal) {
      const { status, json } = await callAsInstallation(
        'create check run',
        installationId,
        { method: 'POST', path: `${repoPath(repo)}/check-runs`, body },
        signal,
      );
      const id = (json as { id?: unknown } | null)?.id;
      if (typeof id !== 'number') {
        throw new AppApiError(`GitHub API: create check run answered ${status} without an id`, status);
      }
      return { id };
    },
    async updateCheckRun(installationId, repo, checkRunId, body, signal) {
      await callAsInstallation(
        'update check run',
        installationId,
        { method: 'PATCH', path: `${repoPath(repo)}/check-runs/${checkRunId}`, body },
        signal,
      );
    },
  };
}

/**
 * The app's private key from a PEM (PKCS#1 as GitHub issues it, or PKCS#8) or the path of a PEM
 * file. The messages never repeat the value: it may be the key itself, mangled.
 */
export function readAppPrivateKey(value: string): KeyObject {
  const pem = looksLikePem(value) ? unescapeNewlines(value) : readKeyFile(value);
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw new Error('the GitHub app private key is not a readable PEM private key');
  }
  if (key.asymmetricKeyType !== 'rsa') throw new Error('the GitHub app private key is not an RSA key');
  return key;
}

function looksLikePem(value: string): boolean {
  return value.trimStart().startsWith('-----BEGIN');
}

/** A PEM passed through an environment variable often arrives with `\n` written out. */
function unescapeNewlines(pem: string): string {
  return pem.includes('\n') ? pem : pem.replaceAll('\\n', '\n');
}

function readKeyFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    const why = typeof code === 'string' ? ` (${code})` : '';
    throw new Error(`the GitHub app private key is neither a PEM nor a readable file${why}`);
  }
}

function appJwt(appId: string, privateKey: KeyObject, nowMs: number): Promise<string> {
  const nowS = Math.floor(nowMs / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT' })
    .setIssuer(appId)
    .setIssuedAt(nowS - JWT_BACKDATE_S)
    .setExpirationTime(nowS + JWT_LIFETIME_S)
    .sign(privateKey);
}

function requestHeaders(attempt: Attempt): Record<string, string> {
  const headers: Record<string, string> = {
    accept: 'application/vnd.github+json',
    'x-github-api-version': '2022-11-28',
    'user-agent': 'svc',
    authorization: `Bearer ${attempt.bearer}`,
  };
  if (attempt.body !== undefined) headers['content-type'] = 'application/json';
  return headers;
}

function repoPath(repo: RepositoryRef): string {
  return `/repos/${encodeURIComponent(repo.owner)}/${encodeURIComponent(repo.name)}`;
}

async function readJson(operation: string, response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    throw new AppApiError(
      `GitHub API: ${operation} answered ${response.status} with a body that is not JSON`,
      response.status,
    );
  }
}

function parseIssuedToken(status: number, json: unknown): CachedToken {
  const { token, expires_at } = (json ?? {}) as { token?: unknown; expires_at?: unknown };
  const expiresAt = typeof expires_at === 'string' ? Date.parse(expires_at) : Number.NaN;
  if (typeof token !== 'string' || token === '' || Number.isNaN(expiresAt)) {
    throw new AppApiError(`GitHub API: ${TOKEN_OPERATION} answered ${status} without a token`, status);
  }
  return { token, expiresAt };
}

/** Server trouble, rate limits and silence may pass within a job; any other refusal will not. */
function isRetryable(outcome: Exclude<Outcome, { kind: 'ok' }>): boolean {
  if (outcome.kind === 'no-answer') return true;
  const { status, headers } = outcome;
  return status >= 500 || status === 429 || (status === 403 && headers.get('x-ratelimit-remaining') === '0');
}

function backoffMs(
  outcome: Exclude<Outcome, { kind: 'ok' }>,
  failures: number,
  baseMs: number,
  maxMs: number,
): number {
  const retryAfter = outcome.kind === 'status' ? outcome.headers.get('retry-after') : null;
  if (retryAfter !== null && /^\d+$/.test(retryAfter.trim())) {
    return Math.min(Number(retryAfter.trim()) * 1000, maxMs);
  }
  return Math.min(baseMs * 2 ** (failures - 1), maxMs);
}

function pause(ms: number, operation: string, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(stopped(operation, signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(stopped(operation, signal!));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function answered(operation: string, status: number): AppApiError {
  return new AppApiError(`GitHub API: ${operation} answered ${status}`, status);
}

function stopped(operation: string, signal: AbortSignal): AppApiError {
  return new AppApiError(`GitHub API: ${operation} was stopped`, null, { cause: signal.reason });
}

/** A network failure in words, from its error code only (a message might quote a URL or a header). */
function noAnswer(operation: string, e: unknown, timedOut: boolean, timeoutMs: number): AppApiError {
  if (timedOut)
    return new AppApiError(`GitHub API: ${operation} did not answer within ${timeoutMs} ms`, null);
  const code = (e as { cause?: { code?: unknown } })?.cause?.code;
  const why = typeof code === 'string' ? ` (${code})` : '';
  return new AppApiError(`GitHub API: ${operation} could not be reached${why}`, null);
}
