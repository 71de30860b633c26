import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';

export interface PublishedBinary {
  size: number;
  sha256: string;
  stream(): ReadableStream<Uint8Array>;
  /** The same executable gzipped (`<path>.gz`, written by the build), when present and current. */
  gzipped: { size: number; stream(): ReadableStream<Uint8Array> } | null;
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
      const gz = await stat(`${path}.gz`).catch(() => null);
      return {
        size: info.size,
        sha256,
        stream: () => streamOf(path),
        // An older .gz would be a stale build: serve it only if written after the executable.
        gzipped:
          gz?.isFile() && gz.mtimeMs >= info.mtimeMs
            ? { size: gz.size, stream: () => streamOf(`${path}.gz`) }
            : null,
      };
    },
  };
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
