import { access } from 'node:fs/promises';
import { type GitRunner, runGit } from './git.js';
import { loadObjectReader, type ObjectDatabase, type ObjectReaderModule } from './native-module.js';

/** A repository's objects opened in this process by the native object reader. */
export interface OpenedDatabase {
  reader: ObjectReaderModule;
  db: ObjectDatabase;
  /** The repository's object directory (absolute), as git finds it. */
  objectsDir: string;
}

/**
 * Opens the repository's object directory for the native object reader, or gives null where git
 * must read it: no reader (not built, another platform, SVC_OBJECT_READER=git), a SHA-256
 * repository, alternates given through the environment, and, for a listing of commits' changes, a
 * shallow clone or grafts (both change commits' parents as git sees them).
 */
export async function openObjectDatabase(
  git: GitRunner,
  purpose: 'blobs' | 'listing',
): Promise<OpenedDatabase | null> {
  const reader = loadObjectReader();
  if (reader === null || process.env.GIT_ALTERNATE_OBJECT_DIRECTORIES) return null;
  const asked = await runGit(git, [
    'rev-parse',
    '--is-shallow-repository',
    '--show-object-format',
    '--path-format=absolute',
    '--git-path',
    'objects',
    '--git-path',
    'info/grafts',
  ]);
  const [shallow, format, objects, grafts] = asked.stdout.toString('utf8').split('\n');
  if (asked.code !== 0 || format !== 'sha1' || !objects || !grafts) return null;
  if (purpose === 'listing' && (shallow !== 'false' || (await exists(grafts)))) return null;
  try {
    return { reader, db: reader.open(objects, []), objectsDir: objects };
  } catch {
    return null; // a layout the reader does not take: git reads it
  }
}

function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}
