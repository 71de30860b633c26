import { access } from 'node:fs/promises';
import { type GitRunner, runGitOnce } from './git.js';
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
  const layout = await repositoryLayout(git);
  if (layout === null || layout.format !== 'sha1') return null;
  const { shallow, objects, grafts } = layout;
  if (purpose === 'listing' && (shallow || (await exists(grafts)))) return null;
  try {
    return { reader, db: reader.open(objects, []), objectsDir: objects };
  } catch {
    return null; // a layout the reader does not take: git reads it
  }
}

/** Where a repository keeps its objects and grafts, their format, and whether it is shallow. */
export interface RepositoryLayout {
  shallow: boolean;
  format: string;
  /** Absolute paths. */
  objects: string;
  grafts: string;
}

/** The repository's layout as git reports it (asked once a scan), or null where git cannot say. */
export async function repositoryLayout(git: GitRunner): Promise<RepositoryLayout | null> {
  const asked = await runGitOnce(git, [
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
  if (asked.code !== 0 || !format || !objects || !grafts) return null;
  return { shallow: shallow !== 'false', format, objects, grafts };
}

function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}
