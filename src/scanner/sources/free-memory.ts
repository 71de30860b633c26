import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { loadObjectReader } from './native-module.js';

/**
 * The JavaScript heap is collected when it holds this much more than the last collection left.
 * V8 lets its old generation grow to a multiple of what survived before it collects it: on rails,
 * from 28 MB to 93 MB through the last 14 s of the reading, 80 MB of it garbage.
 */
const GARBAGE_ALLOWANCE = 32 << 20;

let collect: (() => void) | undefined;
let leftByLastCollection = 0;

/**
 * Gives the memory the scan no longer uses back to the system, between two phases: a full garbage
 * collection, then glibc's free chunks (the array buffers just collected, the native reader's
 * caches) through the native reader's trim.
 *
 * It waits two turns of the event loop first: a child process that has just closed keeps its
 * handles, and through their listeners whatever its run held (a listing's BlobTable), until libuv
 * has closed them in a turn's last phase.
 */
export async function releaseUnusedMemory(): Promise<void> {
  for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve));
  collectGarbage();
  loadObjectReader()?.releaseFreeMemory();
}

/**
 * Sets the allocator up for a process that runs a scan and little else (the CLI's): see the native
 * reader's keepAllocatorCompact. Without the native reader, nothing to do.
 */
export function keepAllocatorCompact(): void {
  loadObjectReader()?.keepAllocatorCompact();
}

/**
 * Collects the heap's garbage when there is more than GARBAGE_ALLOWANCE of it (or may be): called
 * now and then through a long phase, it keeps the heap near what the phase really holds.
 */
export function collectGarbageIfGrown(): void {
  if (getHeapStatistics().used_heap_size > leftByLastCollection + GARBAGE_ALLOWANCE) collectGarbage();
}

function collectGarbage(): void {
  collect ??= collector();
  collect();
  leftByLastCollection = getHeapStatistics().used_heap_size;
}

/**
 * V8 offers its collector only behind --expose-gc: the flag is set here, once, and the `gc` of a new
 * context taken (as jest's --logHeapUsage does). Where that fails, collection is left to V8.
 */
function collector(): () => void {
  try {
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('typeof gc === "function" ? gc : undefined');
    if (typeof gc === 'function') return collectionFor(gc as (options?: object) => void, process.versions.v8);
  } catch {
    // not offered
  }
  return () => {};
}

/**
 * V8 13 (Node 24: the single executable) keeps the pages a collection frees in a pool for its next
 * allocations, resident: after a plain full collection its heap's pages held 57 MB on rails where the
 * heap held 23 MB. Only its memory-reducing collection (the one V8 runs when told memory is low: the
 * `last-resort` flavor) gives them back: two full collections, 40-55 ms on rails against 10-25 ms for
 * one, four times a scan. V8 11 (Node 20) gives them back after a plain one and, given an options
 * object, collected nothing: it is called without arguments.
 */
export function collectionFor(gc: (options?: object) => void, v8Version: string): () => void {
  const major = Number.parseInt(v8Version, 10);
  if (major >= 13) return () => gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  return () => gc();
}
