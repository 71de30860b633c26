import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

describe('loadConfig', () => {
  it('has a real default for every setting', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      baseUrl: 'http://localhost:3000',
      databaseUrl: 'sqlite:./data/svc.db',
      binaryPath: './dist/svc-linux-x64',
      trustProxy: 0,
      providers: {
        codehostApiUrl: 'https://api.github.com',
        paymentApiUrl: 'https://api.stripe.com',
        chatApiUrl: 'https://slack.com',
      },
      oidc: {
        a: {
          issuer: 'https://token.actions.githubusercontent.com',
          jwksUrl: 'https://token.actions.githubusercontent.com/.well-known/jwks',
        },
        b: { issuer: 'https://gitlab.com', jwksUrl: 'https://gitlab.com/oauth/discovery/keys' },
      },
      monthlyCiRuns: { free: 200, paid: 10000 },
      scans: {
        origins: ['https://github.com', 'https://gitlab.com'],
        maxBytes: 2 * 1024 ** 3,
        timeoutSeconds: 900,
        leaseSeconds: 30,
        queue: 'database',
      },
    });
    expect(config.scans.workDir).toMatch(/svc-scans$/);
    expect(config.redisUrl).toBeUndefined();
    // "Sign in with GitHub" is offered only when configured.
    expect(config.oauthA).toBeUndefined();
    expect(Object.isFrozen(config.providers)).toBe(true);
  });

  it('reads overrides, so tests can point every provider at loopback', () => {
    const config = loadConfig({
      PORT: '8080',
      SVC_CODEHOST_API_URL: 'http://127.0.0.1:4001/',
      SVC_DATABASE_URL: 'postgres://localhost/test',
      SVC_OIDC_A_ISSUER: 'http://127.0.0.1:4002',
      SVC_FREE_MONTHLY_CI_RUNS: '5',
    });
    expect(config.port).toBe(8080);
    expect(config.providers.codehostApiUrl).toBe('http://127.0.0.1:4001/');
    expect(config.oidc.a.jwksUrl).toBe('http://127.0.0.1:4002/.well-known/jwks');
    expect(config.monthlyCiRuns.free).toBe(5);
  });

  it('reads scan hosts as origins: a bare host is https, a full origin is kept', () => {
    const config = loadConfig({
      SVC_SCAN_HOSTS: ' GitHub.com , http://127.0.0.1:8123/,https://git.example.test:8443,github.com',
      SVC_SCAN_MAX_BYTES: '1000',
      SVC_SCAN_TIMEOUT_S: '5',
    });
    expect(config.scans.origins).toEqual([
      'https://github.com',
      'http://127.0.0.1:8123',
      'https://git.example.test:8443',
    ]);
    expect(config.scans).toMatchObject({ maxBytes: 1000, timeoutSeconds: 5 });
  });

  it('reads the GitHub sign-in settings, defaulting its URL', () => {
    const env = { SVC_OAUTH_A_CLIENT_ID: 'id', SVC_OAUTH_A_CLIENT_SECRET: 'secret' };
    expect(loadConfig(env).oauthA).toEqual({
      clientId: 'id',
      clientSecret: 'secret',
      url: 'https://github.com',
    });
    expect(loadConfig({ ...env, SVC_OAUTH_A_URL: 'http://127.0.0.1:4003/' }).oauthA?.url).toBe(
      'http://127.0.0.1:4003',
    );
  });

  it.each([
    [{ SVC_SCAN_HOSTS: 'https://github.com/org' }, /^invalid SVC_SCAN_HOSTS: .*neither a host name/],
    [{ SVC_SCAN_HOSTS: 'ssh://github.com' }, /^invalid SVC_SCAN_HOSTS: /],
    [{ SVC_SCAN_HOSTS: 'https://user:pw@github.com' }, /^invalid SVC_SCAN_HOSTS: /],
    [{ SVC_SCAN_HOSTS: 'git hub.com' }, /^invalid SVC_SCAN_HOSTS: /],
    [{ SVC_SCAN_MAX_BYTES: '0' }, /^invalid SVC_SCAN_MAX_BYTES: /],
    [{ SVC_SCAN_TIMEOUT_S: 'soon' }, /^invalid SVC_SCAN_TIMEOUT_S: /],
    [{ PORT: 'eighty' }, /^invalid PORT: /],
    [{ PORT: '70000' }, /^invalid PORT: /],
    [{ SVC_CHAT_API_URL: 'not a url' }, /^invalid SVC_CHAT_API_URL: /],
    [{ SVC_CHAT_API_URL: 'ftp://x.test' }, /^invalid SVC_CHAT_API_URL: /],
    [{ SVC_DATABASE_URL: 'mysql://x' }, /^invalid SVC_DATABASE_URL: must be sqlite:PATH or postgres/],
    [{ SVC_FREE_MONTHLY_CI_RUNS: '-1' }, /^invalid SVC_FREE_MONTHLY_CI_RUNS: /],
    [{ SVC_OAUTH_A_CLIENT_ID: 'id' }, /^invalid SVC_OAUTH_A_CLIENT_SECRET: required when/],
    [{ SVC_OAUTH_A_CLIENT_SECRET: 's' }, /^invalid SVC_OAUTH_A_CLIENT_ID: required when/],
    [{ SVC_OAUTH_A_URL: 'github.com' }, /^invalid SVC_OAUTH_A_URL: /],
    [{ SVC_SCAN_QUEUE: 'pg-boss' }, /^invalid SVC_SCAN_QUEUE: /],
    [{ SVC_SCAN_QUEUE: 'bullmq' }, /^invalid SVC_SCAN_QUEUE: bullmq needs SVC_REDIS_URL$/],
  ])('rejects %j with one line naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});
