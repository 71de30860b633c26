import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';

export interface PublishedBinary {
  size: number;
  sha256: string;
  stream(): ReadableStream<Uint8Array>;
  /** The same executable gzipped (`<path>.gz`, written by the build), when present and current. */
  gzipped: EncodedBinary | null;
  /** And in xz (`<path>.xz`): a third smaller again, for the CI scripts that ask for it. */
  xz: EncodedBinary | null;
}

/** The executable in a content coding, as a file beside it. */
export interface EncodedBinary {
  size: number;
  stream(): ReadableStream<Uint8Array>;
}

/** The executable `/api/action/binary` serves (SVC_BINARY_PATH); null when it is not published. */
export interface BinarySource {
  current(): Promise<PublishedBinary | null>;
}

/**
 * The executable file on disk, checked at each request (publishing is copying a file in place) with
 * its SHA-256 computed once per version (size and mtime), so clients can verify a complete download.
 */
export function fileBinarySource(path: string): BinarySource {
  let cached: { version: string; sha256: string } | null = null;
  return {
    async current() {
      const info = await stat(path).catch(() => null);
      if (info === null || !info.isFile()) return null;
      const version = `${info.size}:${info.mtimeMs}`;
      if (cached?.version !== version) cached = { version, sha256: await sha256File(path) };
      const sha256 = cached.sha256;
      return {
        size: info.size,
        sha256,
        stream: () => streamOf(path),
        gzipped: await encoded(`${path}.gz`, info.mtimeMs),
        xz: await encoded(`${path}.xz`, info.mtimeMs),
      };
    },
  };
}

/** An encoded copy, served only if written after the executable: an older one is a stale build. */
async function encoded(file: string, executableMtimeMs: number): Promise<EncodedBinary | null> {
  const info = await stat(file).catch(() => null);
  return info?.isFile() && info.mtimeMs >= executableMtimeMs
    ? { size: info.size, stream: () => streamOf(file) }
    : null;
}

function streamOf(path: string): ReadableStream<Uint8Array> {
  return Readable.toWeb(createReadStream(path)) as ReadableStream<Uint8Array>;
}

function sha256File(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(path)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolve(hash.digest('hex')));
  });
}
