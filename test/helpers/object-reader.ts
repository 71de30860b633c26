import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  loadObjectReader,
  OBJECT_READER_FILE,
  type ObjectReaderModule,
  objectReaderUnavailableReason,
} from '../../src/scanner/sources/native-module.js';
import { isCi } from './ci.js';

const ADDON = join(import.meta.dirname, '..', '..', 'dist', 'native', OBJECT_READER_FILE);
const linuxX64 = process.platform === 'linux' && process.arch === 'x64';

/** The addon through the scanner's loader; null when it is not built. A built addon that does not load fails. */
function loadBuilt(): ObjectReaderModule | null {
  if (!linuxX64 || !existsSync(ADDON)) return null;
  const module = loadObjectReader();
  if (module === null) throw new Error(`${ADDON} did not load: ${objectReaderUnavailableReason()}`);
  return module;
}

/**
 * The native object reader for a test file: `skip` when it is not built here (in CI it must be: npm
 * run build fails there without rustc, and `reader()` then fails the tests instead of skipping them),
 * saying so once under the file's name.
 */
export function objectReaderForTests(testFile: string): { skip: boolean; reader: () => ObjectReaderModule } {
  const loaded = loadBuilt();
  const skip = !linuxX64 || (loaded === null && !isCi());
  if (skip) {
    console.warn(
      linuxX64
        ? `${testFile} skipped: ${ADDON} is not built (npm run build:native builds it); in CI it must be`
        : `${testFile} skipped: no native object reader on ${process.platform} ${process.arch}`,
    );
  }
  const reader = () => {
    if (loaded === null) throw new Error(`${ADDON} is not built (npm run build:native); CI requires it`);
    return loaded;
  };
  return { skip, reader };
}
