//! The diff pass's pack indexes. After the gate, `git log -p -M --cc` diffs the few commits it let
//! through (blob-first.ts), and git maps each pack's whole index to look objects up: 28 bytes an
//! object, 157 MB at 5.6 million objects, and a few thousand lookups touch nearly every page of it,
//! so every `git log -p` of a large history held the index whole in its resident memory (the scan's
//! peak at a million commits: two of them, 190 MB each). This writes, for each pack, an index of only
//! the objects those diffs read, for git to read in the pack's own index's place (the scan points
//! GIT_OBJECT_DIRECTORY at them, with the repository's objects as an alternate for anything else).
//!
//! What the diffs read, taken generously: each commit, its parents, their trees, and along every
//! path where a commit differs from a parent the trees and blobs of both sides (git reads them for
//! the tree diff, the rename detection among added and deleted files, and the patch); a root commit's
//! whole tree; and the base of any delta that names its base by id (git looks that up in the same
//! pack's index). An object missed is still found through the alternate, the repository's own index
//! then mapped as before: never a wrong answer, only the memory this saves.
//!
//! The index written is git's version 2 (Documentation/gitformat-pack.txt), with one twist: git
//! checks that an index lists as many objects as its pack's header says, so the entries not needed
//! are there as padding, id 0 (sorting before every real id) with offset and CRC 0, written as holes
//! (a sparse file: no disk, and no memory but the few pages a lookup of an id starting with 00
//! touches). The pack's checksum is copied from its own index, as git compares the two; the index's
//! own checksum is left zero (git checks it only in fsck and verify-pack).
//!
//! JavaScript: writeDiffIndex(database, commitIds, directory, out, done) -> done(error, used): on a
//! worker thread, writes `<directory>/pack-*.idx`, each beside a symbolic link `pack-*.pack` to its
//! pack, and three u32 LE into `out`: the objects found, those indexed, and the indexes written.

use crate::odb::Odb;
use crate::tree::{base_name_compare, is_dir, is_gitlink, Tree, TreeCache};
use crate::tree_reader::TreeReader;
use crate::{args, buffer_call, handle_of, string_of, throw};
use std::cmp::Ordering;
use std::collections::HashSet;
use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

/** Deeper trees than this are not walked (git's own walk would not get there either: listing.rs). */
const MAX_DEPTH: usize = 1000;
/** The answer's size: three u32. */
const ANSWER: usize = 12;

/** The objects the diffs of some commits read, found by walking them as git's diff would. */
struct Collector<'a> {
    reader: TreeReader<'a>,
    objects: HashSet<[u8; 20]>,
    /** Trees already walked whole (a root commit's, or one side of a path that is a tree only there). */
    walked_whole: HashSet<[u8; 20]>,
}

impl<'a> Collector<'a> {
    fn add(&mut self, id: &[u8; 20]) {
        self.objects.insert(*id);
    }

    fn commit(&mut self, id: &[u8; 20]) {
        self.add(id);
        let Ok(commit) = self.reader.commit(id) else { return };
        self.add(&commit.tree);
        if commit.parents.is_empty() {
            self.whole(&commit.tree, 0);
        }
        for parent in &commit.parents {
            self.add(parent);
            match self.reader.commit(parent) {
                Ok(p) => {
                    self.add(&p.tree);
                    self.diff(&p.tree, &commit.tree, 0);
                }
                // Not here (a shallow clone's boundary, damage): whatever git makes of it, the
                // commit's whole tree covers it.
                Err(_) => self.whole(&commit.tree, 0),
            }
        }
    }

    /** The trees and blobs along every path where tree `a` and tree `b` differ, both sides. */
    fn diff(&mut self, a: &[u8; 20], b: &[u8; 20], depth: usize) {
        if a == b || depth > MAX_DEPTH {
            return;
        }
        self.add(a);
        self.add(b);
        let (ta, tb) = match (self.reader.tree(Some(a)), self.reader.tree(Some(b))) {
            (Ok(ta), Ok(tb)) => (ta, tb),
            (Ok(_), Err(_)) => return self.whole(a, depth),
            (Err(_), Ok(_)) => return self.whole(b, depth),
            (Err(_), Err(_)) => return,
        };
        let (ea, eb) = (ta.entries(), tb.entries());
        let (mut i, mut j) = (0, 0);
        while i < ea.len() || j < eb.len() {
            let order = match (ea.get(i), eb.get(j)) {
                (Some(x), Some(y)) => base_name_compare(ta.name(x), x.mode, tb.name(y), y.mode),
                (Some(_), None) => Ordering::Less,
                _ => Ordering::Greater,
            };
            match order {
                Ordering::Less => {
                    self.side(&ta, i, depth);
                    i += 1;
                }
                Ordering::Greater => {
                    self.side(&tb, j, depth);
                    j += 1;
                }
                Ordering::Equal => {
                    let (x, y) = (ea[i], eb[j]);
                    if x.mode != y.mode || ta.id(&x) != tb.id(&y) {
                        if is_dir(x.mode) && is_dir(y.mode) {
                            self.diff(ta.id(&x), tb.id(&y), depth + 1);
                        } else {
                            self.side(&ta, i, depth);
                            self.side(&tb, j, depth);
                        }
                    }
                    i += 1;
                    j += 1;
                }
            }
        }
    }

    /** Entry `i` of `tree`, on one side of a difference: a blob, or a tree and all it holds. */
    fn side(&mut self, tree: &Tree, i: usize, depth: usize) {
        let e = tree.entries()[i];
        if is_dir(e.mode) {
            self.whole(tree.id(&e), depth + 1);
        } else if !is_gitlink(e.mode) {
            self.add(tree.id(&e));
        }
    }

    /** Tree `id` and everything in it. */
    fn whole(&mut self, id: &[u8; 20], depth: usize) {
        self.add(id);
        if depth > MAX_DEPTH || !self.walked_whole.insert(*id) {
            return;
        }
        let Ok(tree) = self.reader.tree(Some(id)) else { return };
        for i in 0..tree.entries().len() {
            self.side(&tree, i, depth);
        }
    }
}

/** An object of a pack: its id, where it starts, the CRC the pack's index keeps of it. */
type IndexEntry = ([u8; 20], u64, u32);

/**
 * Each collected object's place in the first pack that holds it (loose ones are found through the
 * alternate), with the bases of deltas naming their base by id, which git looks up in the same pack.
 */
fn place(odb: &Odb, objects: &HashSet<[u8; 20]>) -> Result<Vec<Vec<IndexEntry>>, String> {
    let mut by_pack: Vec<Vec<IndexEntry>> = vec![Vec::new(); odb.packs().len()];
    let mut placed: HashSet<(usize, usize)> = HashSet::new();
    let mut todo: Vec<(usize, usize, [u8; 20])> = Vec::new();
    for id in objects {
        if let Some((p, k)) = odb.packed_place(id)? {
            todo.push((p, k, *id));
        }
    }
    while let Some((p, k, id)) = todo.pop() {
        if !placed.insert((p, k)) {
            continue;
        }
        let pack = &odb.packs()[p];
        let offset = pack.offset_of(k)?;
        by_pack[p].push((id, offset, pack.crc_of(k)?));
        if let Ok(Some(base)) = odb.ref_delta_base(p, offset) {
            if let Some(b) = pack.position(&base)? {
                todo.push((p, b, base));
            }
        }
    }
    Ok(by_pack)
}

/** Writes the version-2 index of `entries` (sorted by id) for a pack of `count` objects (see above). */
fn write_index(path: &Path, entries: &[IndexEntry], count: usize, pack_checksum: &[u8; 20]) -> Result<(), String> {
    let k = entries.len();
    let padding = count.checked_sub(k).ok_or("more entries than the pack holds")?;
    let mut head = Vec::with_capacity(8 + 1024);
    head.extend_from_slice(&[0xff, b't', b'O', b'c', 0, 0, 0, 2]);
    let mut fanout = [0u32; 256];
    for (id, _, _) in entries {
        fanout[id[0] as usize] += 1;
    }
    let mut total = padding as u32;
    for n in fanout {
        total += n;
        head.extend_from_slice(&total.to_be_bytes());
    }
    let mut ids = Vec::with_capacity(k * 20);
    let mut crcs = Vec::with_capacity(k * 4);
    let mut offsets = Vec::with_capacity(k * 4);
    let mut large = Vec::new();
    for (id, offset, crc) in entries {
        ids.extend_from_slice(id);
        crcs.extend_from_slice(&crc.to_be_bytes());
        if *offset < 0x8000_0000 {
            offsets.extend_from_slice(&(*offset as u32).to_be_bytes());
        } else {
            offsets.extend_from_slice(&(0x8000_0000 | (large.len() / 8) as u32).to_be_bytes());
            large.extend_from_slice(&offset.to_be_bytes());
        }
    }
    let fail = |e: std::io::Error| format!("{}: {e}", path.display());
    let mut file = File::create(path).map_err(fail)?;
    file.write_all(&head).map_err(fail)?;
    // Each table: `padding` entries as a hole, then the real ones.
    for (table, width) in [(&ids, 20), (&crcs, 4), (&offsets, 4)] {
        file.seek(SeekFrom::Current((padding * width) as i64)).map_err(fail)?;
        file.write_all(table).map_err(fail)?;
    }
    file.write_all(&large).map_err(fail)?;
    file.write_all(pack_checksum).map_err(fail)?;
    file.write_all(&[0; 20]).map_err(fail)?;
    Ok(())
}

/**
 * At most this many threads walk the commits, each a contiguous part (neighbours share trees and
 * delta bases): the diff pass waits for the indexes, and the scan's other work is done by then. On a
 * million synthetic commits (fast-import's pack: long delta chains, every tree a walk down one) the
 * 15,216 commits of the diff pass were indexed in 5.2 s on one thread, 4.2 s on two; on rails (517
 * commits) in 0.4 s, on git/git (37) in 0.08 s.
 */
const MOST_WALKERS: usize = 4;

/** The objects the diffs of `ids` read, found by walking them on up to MOST_WALKERS threads. */
fn collect(odb: &Odb, cache: &TreeCache, ids: &[u8]) -> Result<HashSet<[u8; 20]>, String> {
    let commits: Vec<&[u8]> = ids.chunks_exact(20).collect();
    let walkers = std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, MOST_WALKERS);
    let per_walker = commits.len().div_ceil(walkers).max(1);
    std::thread::scope(|scope| {
        let walks: Vec<_> = commits
            .chunks(per_walker)
            .map(|part| {
                scope.spawn(move || -> Result<HashSet<[u8; 20]>, String> {
                    let mut collector =
                        Collector { reader: TreeReader::new(odb, cache)?, objects: HashSet::new(), walked_whole: HashSet::new() };
                    for chunk in part {
                        let id: &[u8; 20] = (*chunk).try_into().unwrap();
                        // A fault in one commit's walk leaves its objects to the alternate, not the scan failed.
                        if catch_unwind(AssertUnwindSafe(|| collector.commit(id))).is_err() {
                            collector.reader.restart();
                        }
                    }
                    Ok(collector.objects)
                })
            })
            .collect();
        let mut all: HashSet<[u8; 20]> = HashSet::new();
        for walk in walks {
            let found = walk.join().map_err(|_| "writeDiffIndex: a walk failed".to_string())??;
            if all.is_empty() {
                all = found;
            } else {
                all.extend(found);
            }
        }
        Ok(all)
    })
}

/** Collects, places and writes; the three counts of the answer. */
fn write_all(odb: &Odb, cache: &TreeCache, ids: &[u8], directory: &Path) -> Result<[u32; 3], String> {
    let objects = collect(odb, cache, ids)?;
    let mut by_pack = place(odb, &objects)?;
    let (mut indexed, mut written) = (0u32, 0u32);
    let mut names: HashSet<PathBuf> = HashSet::new();
    for (p, entries) in by_pack.iter_mut().enumerate() {
        let pack = &odb.packs()[p];
        let (Some(index_name), Some(pack_name)) = (pack.index_path.file_name(), pack.data_path.file_name()) else { continue };
        // Two packs of one name (the repository's and an alternate's copy): the first one's.
        if entries.is_empty() || !names.insert(PathBuf::from(index_name)) {
            continue;
        }
        entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        write_index(&directory.join(index_name), entries, pack.count(), &pack.checksum()?)?;
        let target = std::fs::canonicalize(&pack.data_path).map_err(|e| format!("{}: {e}", pack.data_path.display()))?;
        std::os::unix::fs::symlink(&target, directory.join(pack_name)).map_err(|e| format!("{}: {e}", directory.display()))?;
        indexed += entries.len() as u32;
        written += 1;
    }
    Ok([objects.len() as u32, indexed, written])
}

/** writeDiffIndex(database, commitIds, directory, out, done): see the top of this file. */
pub extern "C" fn write_diff_index(env: crate::napi::napi_env, info: crate::napi::napi_callback_info) -> crate::napi::napi_value {
    let [db, ids, directory, out, done] = args::<5>(env, info);
    let Some(handle) = handle_of(env, db) else { return throw(env, "writeDiffIndex: not a database") };
    let Some(ids) = buffer_call::ids_of(env, ids) else {
        return throw(env, "writeDiffIndex: commitIds must be a Buffer of 20-byte ids");
    };
    let Some(directory) = string_of(env, directory) else { return throw(env, "writeDiffIndex: directory must be a string") };
    let odb = handle.odb.lock().unwrap_or_else(|p| p.into_inner()).clone();
    let cache = handle.trees.lock().unwrap_or_else(|p| p.into_inner()).clone();
    let job: buffer_call::Job = Box::new(move |out| match (odb, cache) {
        (Some(odb), Some(cache)) => {
            let counts = write_all(&odb, &cache, &ids, Path::new(&directory))?;
            for (i, n) in counts.iter().enumerate() {
                out[i * 4..i * 4 + 4].copy_from_slice(&n.to_le_bytes());
            }
            Ok(ANSWER)
        }
        _ => Err("writeDiffIndex: the database is closed".into()),
    });
    buffer_call::queue(env, "writeDiffIndex", c"svc diff index", out, ANSWER, done, job)
}
