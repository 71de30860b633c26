import { describe, expect, it } from 'vitest';
import { DomainError } from './errors.js';
import { MAX_SCAN_URL_LENGTH, parseScanUrl } from './scan-url.js';

const ALLOWED = ['https://github.com', 'https://gitlab.com', 'http://127.0.0.1:8123'];

describe('parseScanUrl', () => {
  it.each([
    ['https://github.com/octo/hello', 'https://github.com/octo/hello'],
    ['https://github.com/octo/hello.git', 'https://github.com/octo/hello.git'],
    ['https://github.com/octo/hello/', 'https://github.com/octo/hello'],
    ['HTTPS://GitHub.com/Octo/Hello-World_1.x', 'https://github.com/Octo/Hello-World_1.x'],
    ['https://github.com:443/octo/hello', 'https://github.com/octo/hello'],
    ['https://gitlab.com/group/project', 'https://gitlab.com/group/project'],
    ['http://127.0.0.1:8123/octo/hello.git', 'http://127.0.0.1:8123/octo/hello.git'],
  ])('accepts %s', (input, url) => {
    expect(parseScanUrl(input, ALLOWED).url).toBe(url);
  });

  it.each([
    [undefined, /url is required/],
    [42, /url is required/],
    ['', /url is required/],
    [`https://github.com/octo/${'a'.repeat(10 * 1024)}`, /too long \(at most 2048/],
    ['https://bitbucket.org/octo/hello', /^url's host is not allowed$/],
    ['https://github.com.evil.test/octo/hello', /host is not allowed/],
    ['https://127.0.0.1:8124/octo/hello', /host is not allowed/],
    ['http://127.0.0.1/octo/hello', /host is not allowed/],
    ['http://github.com/octo/hello', /only https:\/\//],
    ['file:///etc/passwd', /only https:\/\//],
    ['file://localhost/srv/repo.git', /only https:\/\//],
    ['ssh://git@github.com/octo/hello.git', /only https:\/\//],
    ['git@github.com:octo/hello.git', /only https:\/\//],
    ['git://github.com/octo/hello', /only https:\/\//],
    ['ext::sh -c touch% /tmp/x', /spaces|only https/],
    ['github.com/octo/hello', /only https:\/\//],
    ['https://user:secret@github.com/octo/hello', /credentials/],
    ['https://token@github.com/octo/hello', /credentials/],
    ['https://github.com/octo/hello?ref=main', /query or fragment/],
    ['https://github.com/octo/hello#readme', /query or fragment/],
    ['https://github.com/octo/../hello', /OWNER\/NAME/],
    ['https://github.com/../../etc/passwd', /OWNER\/NAME/],
    ['https://github.com/octo/%2e%2e', /OWNER\/NAME/],
    ['https://github.com/octo/hello%2Fx', /OWNER\/NAME/],
    ['https://github.com/octo/.git', /OWNER\/NAME/],
    ['https://github.com/octo', /OWNER\/NAME/],
    ['https://github.com/', /OWNER\/NAME/],
    ['https://github.com/octo/hello/tree/main', /OWNER\/NAME/],
    ['https://github.com//octo/hello', /OWNER\/NAME/],
    ['https://github.com/octo/hello\\..', /control characters or "\\"/],
    ['https://github.com/octo/hel lo', /spaces/],
    ['https://github.com/octo/hello\n', /control characters/],
  ])('refuses %j with its reason', (input, reason) => {
    let caught: unknown;
    try {
      parseScanUrl(input, ALLOWED);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(DomainError);
    expect((caught as DomainError).code).toBe('invalid-input');
    expect((caught as DomainError).message).toMatch(reason);
  });

  it('never repeats the URL in its reason (it may hold a credential)', () => {
    expect(() => parseScanUrl('https://u:hunter2hunter2@github.com/o/n', ALLOWED)).toThrow(
      /^(?!.*hunter2).*$/,
    );
  });

  it('allows plain http only for an origin listed with http', () => {
    expect(() => parseScanUrl('http://127.0.0.1:8123/o/n', ['https://github.com'])).toThrow(/not allowed/);
    expect(MAX_SCAN_URL_LENGTH).toBe(2048);
  });
});
