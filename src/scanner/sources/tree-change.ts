/**
 * One path a commit changed, as `git log --raw -c` lists it: the blob it has now (null when the path
 * was deleted) and the blobs it had in each parent (none for an added path). Gitlinks (submodule
 * commits) are left out: they are not objects of this repository and hold no lines.
 */
export interface TreeChange {
  /** The path as git printed it (bytes as latin1): which file's versions these blobs are. */
  path: string;
  newBlob: string | null;
  oldBlobs: string[];
  /**
   * For each old blob, whether git diffs the new blob against it: not across a change between a
   * file and a symlink, which git shows as a deletion and an addition.
   */
  diffedAgainst: boolean[];
}

const GITLINK = 0o160000;
const SYMLINK = 0o120000;

/**
 * The change of one listed entry, from its modes and ids (null for a side that lacks the path, or
 * a gitlink), or null when it names no blob of this repository.
 */
export function changeOf(
  path: string,
  newMode: number,
  newId: string | null,
  oldModes: readonly number[],
  oldIds: readonly (string | null)[],
): TreeChange | null {
  const oldBlobs: string[] = [];
  const diffedAgainst: boolean[] = [];
  for (let k = 0; k < oldModes.length; k++) {
    const id = oldIds[k];
    if (oldModes[k] === GITLINK || id === null || id === undefined) continue;
    oldBlobs.push(id);
    diffedAgainst.push((oldModes[k] === SYMLINK) === (newMode === SYMLINK));
  }
  const newBlob = newMode === GITLINK ? null : newId;
  return newBlob === null && oldBlobs.length === 0 ? null : { path, newBlob, oldBlobs, diffedAgainst };
}
