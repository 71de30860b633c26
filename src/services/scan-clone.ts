import { spawn } from 'node:child_process';
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { lowerPriority } from './scan-priority.js';

/** Why a clone failed, in words a user can act on; never git's own output (it can echo anything). */
export class CloneError extends Error {
  constructor(
    readonly reason: 'not-found' | 'too-large' | 'unreachable' | 'failed',
    message: string,
  ) {
    super(message);
    this.name = 'CloneError';
  }
}

export interface CloneOptions {
  /** A URL checked by parseScanUrl. */
  url: string;
  /** A directory that does not exist yet; the bare repository goes there. */
  into: string;
  /** A home with nothing in it: git and curl read credentials from $HOME (.gitconfig, .netrc). */
  emptyHome: string;
  maxBytes: number;
  /** Kills the clone (the scan's time bound, or the worker stopping). */
  signal: AbortSignal;
  /** How often the clone's size is measured; tests make it short. */
  sizeCheckMs?: number;
}

/** Environment variables a clone keeps from the service's: how to reach the network, nothing else. */
const PASSED_THROUGH = [
  'PATH',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
];

/**
 * A full clone of a public repository (bare: every branch and tag, no work tree) with no credential
 * of any kind: no user or system git config, an empty $HOME (so no .netrc), credential helpers and
 * askpass off, prompts off (a private repository then fails instead of asking), only the URL's own
 * protocol allowed and no redirects (a redirect could lead to a host that is not allowed). Killed
 * when the directory grows past `maxBytes` or the signal aborts. The caller removes `into`.
 */
export function cloneRepository(options: CloneOptions): Promise<void> {
  return runGitTransfer({
    ...options,
    // Progress lines on stderr (read and dropped) keep git writing to our pipe: if this process is
    // killed, git's next write fails (SIGPIPE) and the clone dies with it instead of running on.
    command: ['clone', '--bare', '--progress', '--', options.url, options.into],
  });
}

export interface GitTransferOptions extends CloneOptions {
  /** The git command after the pinned settings: a clone into `into`, or `-C into fetch ...`. */
  command: string[];
  /**
   * An HTTP Authorization header value for the transfer (the GitHub application's installation
   * token). Passed in git's environment (GIT_CONFIG_*), never on its command line, which any user
   * of the machine can read.
   */
  authorization?: string;
}

/**
 * One git command that talks to a repository host, with the clone's pinned, credential-free
 * environment (no config, empty home, prompts off, one protocol, no redirects), killed when `into`
 * grows past `maxBytes` or the signal aborts; its failure in one of a few fixed reasons.
 */
export function runGitTransfer(options: GitTransferOptions): Promise<void> {
  // An abort listener added after the abort never fires: a stop that came first must be seen here.
  if (options.signal.aborted) return Promise.reject(options.signal.reason);
  const env = pinnedGitEnvironment(options.emptyHome);
  if (options.authorization !== undefined) {
    env.GIT_CONFIG_COUNT = '1';
    env.GIT_CONFIG_KEY_0 = 'http.extraHeader';
    env.GIT_CONFIG_VALUE_0 = `Authorization: ${options.authorization}`;
  }
  const scheme = options.url.startsWith('http://') ? 'http' : 'https';
  const args = [
    '-c',
    'protocol.allow=never',
    '-c',
    `protocol.${scheme}.allow=always`,
    '-c',
    'credential.helper=',
    '-c',
    'core.askPass=',
    '-c',
    'http.followRedirects=false',
    ...options.command,
  ];
  return new Promise((resolve, reject) => {
    // A process group of its own: git clone runs the transfer in a child (git-remote-https), which
    // a kill of git alone would leave running, holding the pipe and the connection.
    const child = spawn('git', args, { env, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
    // Set before git starts its transfer helper, which inherits it.
    lowerPriority(child.pid);
    let stderr = '';
    let tooLarge = false;
    child.stderr.on('data', (chunk: Buffer) => {
      // The end is kept: that is where git says why it failed, after its progress lines.
      stderr = (stderr + chunk.toString('utf8')).slice(-8192);
    });
    const kill = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    options.signal.addEventListener('abort', kill, { once: true });
    // git has no limit of its own on what a clone receives: the pack grows in the directory as it
    // arrives, so its size is watched and the clone killed past the bound.
    const sizeCheck = setInterval(() => {
      void directorySize(options.into).then((bytes) => {
        if (bytes > options.maxBytes) {
          tooLarge = true;
          kill();
        }
      });
    }, options.sizeCheckMs ?? 250);
    const done = () => {
      clearInterval(sizeCheck);
      options.signal.removeEventListener('abort', kill);
    };
    child.on('error', (e) => {
      done();
      reject(new CloneError('failed', `could not run git: ${e.name}`));
    });
    child.on('close', async (code) => {
      done();
      if (options.signal.aborted) return reject(options.signal.reason);
      // A clone can also finish between two checks: measured once more at the end.
      if (tooLarge || (code === 0 && (await directorySize(options.into)) > options.maxBytes)) {
        return reject(
          new CloneError('too-large', `repository is larger than the limit of ${options.maxBytes} bytes`),
        );
      }
      if (code === 0) return resolve();
      reject(cloneFailure(stderr));
    });
  });
}

/**
 * The environment every git of a server-side scan runs in: no user or system config, `emptyHome` as
 * $HOME (so no .netrc), prompts and askpass off, C locale, and of the service's own environment only
 * what reaches the network (PATH, proxies).
 */
export function pinnedGitEnvironment(emptyHome: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    HOME: emptyHome,
    LC_ALL: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: '',
    SSH_ASKPASS: '',
  };
  for (const name of PASSED_THROUGH) if (process.env[name] !== undefined) env[name] = process.env[name];
  return env;
}

/**
 * A host that answers with a redirect (a renamed or moved repository, or a way to lead the clone to a
 * host that is not allowed): not followed, and said so in the README's words.
 */
export const REDIRECTED = 'repository not found or not public (redirects are not followed)';

/** git's complaint -> one of a few fixed reasons (git's text may quote the server's answer). */
function cloneFailure(stderr: string): CloneError {
  if (
    /not found|terminal prompts disabled|could not read (Username|Password)|Authentication failed|returned error: 40[134]|HTTP 40[134]|Repository not found/i.test(
      stderr,
    )
  ) {
    return new CloneError('not-found', 'repository not found or not public');
  }
  // Before "unable to access", which git puts in front of a redirect it did not follow too
  // ("unable to access '...': The requested URL returned error: 301"): README's "redirects not followed".
  if (/returned error: 30\d|HTTP 30\d|redirect/i.test(stderr)) return new CloneError('not-found', REDIRECTED);
  if (
    /Could not resolve host|Failed to connect|Connection refused|timed out|SSL|TLS|unable to access/i.test(
      stderr,
    )
  ) {
    return new CloneError('unreachable', 'could not reach the repository host');
  }
  return new CloneError('failed', 'clone failed');
}

/** Bytes in a directory tree (0 when it does not exist yet); files vanishing meanwhile are skipped. */
export async function directorySize(dir: string): Promise<number> {
  let total = 0;
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += await directorySize(path);
    else
      total += await lstat(path).then(
        (s) => s.size,
        () => 0,
      );
  }
  return total;
}
