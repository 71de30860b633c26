import { type RegistryFacts, RegistryUnavailable } from '../types.js';

/**
 * What every registry client shares: bounded, redirect-less fetching with reasons from a fixed
 * vocabulary, and the small parsers. Apart from index.ts so the clients do not import their own index.
 */
export interface RegistryClientOptions {
  /** The registry's configured base URL (a path prefix is kept). */
  baseUrl: string;
  /** Defaults to the global fetch; tests and the service may pass their own. */
  fetch?: typeof fetch | undefined;
  /** The most bytes of one (decoded) response body that are read; defaults to 20 MB. */
  maxBytes?: number | undefined;
}

export const DEFAULT_MAX_BYTES = 20 * 1024 * 1024;

export interface RegistryRequest {
  /** Names the registry in RegistryUnavailable. */
  registry: string;
  url: string;
  signal: AbortSignal;
  fetch?: typeof fetch | undefined;
  maxBytes?: number | undefined;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Statuses that mean "no such package" (404 by default); they answer null. */
  missing?: readonly number[];
}

/** `base` + `/` + `path`, the base's own path kept and its trailing slashes dropped. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

/**
 * One request to a registry: the body text of a 200, or null for a status in `missing`. Anything else
 * throws RegistryUnavailable with a short reason that never quotes the response: a network error, the
 * signal firing (before or during the body), a redirect (never followed), 429, 5xx, any other status, or
 * a body over `maxBytes`.
 */
export async function fetchText(request: RegistryRequest): Promise<string | null> {
  const { registry, signal } = request;
  const doFetch = request.fetch ?? fetch;
  const maxBytes = request.maxBytes ?? DEFAULT_MAX_BYTES;
  const missing = request.missing ?? [404];
  try {
    const init: RequestInit = {
      method: request.method ?? 'GET',
      headers: request.headers ?? {},
      redirect: 'manual',
      signal,
    };
    if (request.body !== undefined) init.body = request.body;
    const response = await doFetch(request.url, init);
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => {});
      if (missing.includes(response.status)) return null;
      throw new RegistryUnavailable(registry, describeStatus(response.status));
    }
    return await readBounded(response, maxBytes, registry);
  } catch (e) {
    if (e instanceof RegistryUnavailable) throw e;
    throw new RegistryUnavailable(registry, describeFailure(e, signal));
  }
}

/** fetchText, then JSON.parse; a body that is not JSON throws RegistryUnavailable. */
export async function fetchJson(request: RegistryRequest): Promise<unknown> {
  const text = await fetchText(request);
  if (text === null) return null;
  return parseJson(request.registry, text);
}

export function parseJson(registry: string, text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new RegistryUnavailable(registry, 'the response is not JSON');
  }
}

/** For a body that parsed but is not what the registry documents. */
export function badShape(registry: string): RegistryUnavailable {
  return new RegistryUnavailable(registry, 'unexpected response shape');
}

/** The facts of a package the registry does not have. */
export function notFound(): RegistryFacts {
  return { exists: false, firstPublished: null, resolvedVersion: null, versionPublished: null };
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A date from an ISO 8601 string; null for anything else. */
export function parseDate(v: unknown): Date | null {
  if (typeof v !== 'string' || v === '') return null;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** The earlier of two dates, either possibly null. */
export function earliest(a: Date | null, b: Date | null): Date | null {
  if (a === null) return b;
  if (b === null) return a;
  return b.getTime() < a.getTime() ? b : a;
}

function describeStatus(status: number): string {
  if (status === 429) return 'rate limited (HTTP 429)';
  if (status >= 500) return `server error (HTTP ${status})`;
  if (status >= 300 && status < 400) return `unexpected redirect (HTTP ${status})`;
  return `unexpected answer (HTTP ${status})`;
}

function describeFailure(e: unknown, signal: AbortSignal): string {
  if (signal.aborted) {
    const reason: unknown = signal.reason;
    return reason instanceof Error && reason.name === 'TimeoutError'
      ? 'timed out'
      : 'the request was stopped';
  }
  const code = (e as { cause?: { code?: unknown } } | null)?.cause?.code;
  return typeof code === 'string' ? `network error (${code})` : 'network error';
}

async function readBounded(response: Response, maxBytes: number, registry: string): Promise<string> {
  const limit =
    maxBytes >= 1024 * 1024 ? `${Math.round(maxBytes / 1024 / 1024)} MB` : `${Math.ceil(maxBytes / 1024)} KB`;
  const tooLarge = () => new RegistryUnavailable(registry, `the response is larger than ${limit}`);
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
