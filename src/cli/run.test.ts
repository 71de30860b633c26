import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { liveChildren } from '../../test/helpers/child-processes.js';
import { fakeCodehostToken } from '../../test/helpers/fake-secrets.js';
import { TestRepo } from '../../test/helpers/git-repo.js';
import { sink } from '../../test/helpers/text-sink.js';
import { ScanError } from '../scanner/errors.js';
import { scanRepository } from '../scanner/index.js';
import { type CliIo, UsageError } from './io.js';
import { type CommandSet, oneLine, run } from './run.js';

async function runFailing(
  failure: () => Promise<never>,
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; stderr: string; stdout: string }> {
  const [stdout, stderr] = [sink(), sink()];
  const io: CliIo = { stdout: stdout.stream, stderr: stderr.stream, env };
  const commands: CommandSet = { scan: async () => ({ run: failure, help: '' }) };
  const code = await run(['scan'], io, commands);
  return { code, stderr: stderr.text(), stdout: stdout.text() };
}

let repo: TestRepo;
beforeAll(() => {
  repo = new TestRepo();
  for (let i = 0; i < 5; i++) repo.commitFiles({ [`file-${i}.txt`]: `line ${i}\n` }, `commit ${i}`);
  // A commit git's diff pass reads: the scan's last progress is reported from it, while git runs.
  repo.commitFiles({ 'config.js': `const token = "${fakeCodehostToken()}";\n` }, 'a secret');
});
afterAll(() => repo.cleanup());

describe('a failure inside a scan, as the CLI reports it', () => {
  it('ends with exit code 2 and one line when a callback run while git reads throws, and leaves no git', async () => {
    const result = await runFailing(async () => {
      // The last commit done is reported from inside the handling of git's diff output; it throws
      // a message of several lines, as an error from git or the system may have.
      await scanRepository({
        path: repo.dir,
        onProgress: (done, total) => {
          if (done === total) throw new Error('the handler failed\nwhile git was reading\n');
        },
      });
      throw new Error('the scan should have failed');
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('svc: internal error: the handler failed while git was reading\n');
    expect(result.stdout).toBe('');
    expect(liveChildren().filter((name) => name === 'git')).toEqual([]);
  });

  it("keeps a scan error's message of several lines to one", async () => {
    const result = await runFailing(async () => {
      throw new ScanError('fatal', 'git failed:\nfatal: bad object\n  twice');
    });
    expect(result).toEqual({ code: 2, stderr: 'svc: git failed: fatal: bad object twice\n', stdout: '' });
  });

  it("keeps a usage error's message, and an unknown command's name, to one line", async () => {
    const usage = await runFailing(async () => {
      throw new UsageError('unknown format "a\nb"');
    });
    expect(usage).toEqual({
      code: 2,
      stderr: 'svc: unknown format "a b" (run "svc scan --help")\n',
      stdout: '',
    });
    const [stdout, stderr] = [sink(), sink()];
    const io: CliIo = { stdout: stdout.stream, stderr: stderr.stream, env: {} };
    expect(await run(['sc\nan'], io, {})).toBe(2);
    expect(stderr.text()).toBe('svc: unknown command "sc an" (run "svc --help")\n');
  });

  it('shows the stack after the line only with SVC_DEBUG=1', async () => {
    const quiet = await runFailing(async () => {
      throw new Error('boom');
    });
    expect(quiet.stderr).toBe('svc: internal error: boom\n');
    const debug = await runFailing(
      async () => {
        throw new Error('boom');
      },
      { SVC_DEBUG: '1' },
    );
    expect(debug.code).toBe(2);
    const [first, ...rest] = debug.stderr.split('\n');
    expect(first).toBe('svc: internal error: boom');
    expect(rest.join('\n')).toMatch(/^Error: boom\n\s+at /);
  });

  it('reports what is thrown when it is not an Error, on one line', async () => {
    const result = await runFailing(async () => {
      throw 'a string\nof two lines';
    });
    expect(result.stderr).toBe('svc: internal error: a string of two lines\n');
  });
});

describe('oneLine', () => {
  it('joins the non-blank lines of a message with single spaces', () => {
    expect(oneLine('one')).toBe('one');
    expect(oneLine('a\r\nb\n\n  c  \n')).toBe('a b c');
    expect(oneLine('\n \n')).toBe('no message');
  });
});
