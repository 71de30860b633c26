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
    });
    expect(config.redisUrl).toBeUndefined();
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

  it.each([
    [{ PORT: 'eighty' }, /^invalid PORT: /],
    [{ PORT: '70000' }, /^invalid PORT: /],
    [{ SVC_CHAT_API_URL: 'not a url' }, /^invalid SVC_CHAT_API_URL: /],
    [{ SVC_CHAT_API_URL: 'ftp://x.test' }, /^invalid SVC_CHAT_API_URL: /],
    [{ SVC_DATABASE_URL: 'mysql://x' }, /^invalid SVC_DATABASE_URL: must be sqlite:PATH or postgres/],
    [{ SVC_FREE_MONTHLY_CI_RUNS: '-1' }, /^invalid SVC_FREE_MONTHLY_CI_RUNS: /],
  ])('rejects %j with one line naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});
