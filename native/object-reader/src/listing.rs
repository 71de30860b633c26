//! Each commit's tree changes, as `git log --no-walk=unsorted --raw -r --no-renames --no-abbrev -z -c`
//! (with log.showRoot) lists them: a root commit against the empty tree, a commit with one parent
//! by the plain recursive tree diff, a merge by the combined diff's multi-tree walk (only the paths
//! that differ from every parent). One walk serves all three, as in git: tree-diff.c's
//! ll_diff_tree_paths and emit_path, ported (git 2.39), with one parent for a plain diff.
//!
//! JavaScript: listChanges(database, commitIds, out, done, facts) -> done(error, used) on the main
//! thread. `facts` (null or undefined: none) are the commits' facts from the walk (commit_facts.rs),
//! one a commit id: a commit of one parent or none is then not read (its fact says what the listing
//! reads of it), a merge still is.
//! The records written into `out`, one a commit, in order:
//!   u8 status: 0 listed; 2 left to git (a commit or tree missing, damaged, of another type, or
//!     anything not done here exactly as git does it)
//!   when 0: u32 LE parents (the commit's `parent` lines), u32 LE count, then `count` changes:
//!     u32 LE path length, the path (from the root, '/'-separated, as git -z prints it),
//!     u32 LE new mode (0 when absent) + 20-byte new id (zeros when absent),
//!     then for each parent (one all-zero side for a root commit) u32 LE mode + 20-byte id.
//! A record that does not fit in what is left of `out` ends the call (`used` bytes hold the records
//! of the first commits; the caller asks again for the rest); one that does not fit even first is
//! status 2.
//!
//! listParentChanges(database, commitIds, paths, out, done) lists each commit against each of its
//! parents apart, as `git log --raw -r --no-renames -m --sparse -- <paths>` does (a damaged
//! history's second look at its merges: blob-first.ts): the same records, but every change has one
//! old side, its parent's, and a commit's changes are its first parent's, then its second's, and so
//! on. `paths` (null: none) is a Buffer of paths each ended by a line feed: only changes at them or
//! under them are listed, as git's literal pathspecs limit a listing.

use crate::commit_facts::{commit_of, facts_of, FACT_SIZE};
use crate::napi::*;
use crate::odb::Odb;
use crate::tree::{base_name_compare, common_prefix, is_dir, Commit, Entry, Tree, TreeCache};
use crate::tree_reader::{TreeReader, Unreadable};
use crate::{args, buffer_call, handle_of, throw, LEFT_TO_GIT};
use std::cmp::Ordering;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

const LISTED: u8 = 0;
/** Status, parents and count: a listing with no changes. */
const HEADER: usize = 9;
/** Deeper trees than this are left to git (the walk recurses once a level). */
const MAX_DEPTH: usize = 1000;

/** Why a commit's listing stopped. */
enum Stop {
    /** git should list it: something missing or damaged, or not handled here. */
    LeaveToGit,
    /** Its record does not fit in what is left of `out`. */
    NoRoom,
}

impl From<Unreadable> for Stop {
    fn from(_: Unreadable) -> Stop {
        Stop::LeaveToGit
    }
}

/** How a call lists a commit: listChanges' combined listing, or listParentChanges' one. */
pub enum Mode {
    /** One walk of the commit's tree and all its parents' (`-c`). */
    Combined,
    /** One walk for each parent (`-m`), limited to these paths when there are any. */
    PerParent(Option<Vec<Vec<u8>>>),
}

/** One call's state: where objects come from, and where the records go. */
struct Lister<'a> {
    reader: TreeReader<'a>,
    /** The path of the trees being walked, each name followed by '/' (git's `base`). */
    base: Vec<u8>,
    out: &'a mut [u8],
    at: usize,
    count: u32,
    /** Paths the listing is limited to (per-parent listings only). */
    limit: Option<Vec<Vec<u8>>>,
    per_parent: bool,
}

/** An entry of a tree being walked, or the end of it (which sorts after every entry). */
struct Desc {
    tree: Tree,
    at: usize,
}

impl Desc {
    #[inline]
    fn entry(&self) -> Option<&Entry> {
        self.tree.entries().get(self.at)
    }
}

/** git's tree_entry_pathcmp: by name and whether a tree; an ended tree after everything. */
#[inline]
fn pathcmp(a: &Desc, b: &Desc) -> Ordering {
    match (a.entry(), b.entry()) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Greater,
        (Some(_), None) => Ordering::Less,
        (Some(x), Some(y)) => base_name_compare(a.tree.name(x), x.mode, b.tree.name(y), y.mode),
    }
}

impl<'a> Lister<'a> {
    fn commit(&mut self, id: &[u8; 20]) -> Result<Arc<Commit>, Stop> {
        Ok(self.reader.commit(id)?)
    }

    fn tree(&mut self, id: Option<&[u8; 20]>) -> Result<Desc, Stop> {
        Ok(Desc { tree: self.reader.tree(id)?, at: 0 })
    }

    #[inline]
    fn put_u32(&mut self, value: u32) {
        self.out[self.at..self.at + 4].copy_from_slice(&value.to_le_bytes());
        self.at += 4;
    }

    #[inline]
    fn put_bytes(&mut self, bytes: &[u8]) {
        self.out[self.at..self.at + bytes.len()].copy_from_slice(bytes);
        self.at += bytes.len();
    }

    /**
     * The record of commit `id` at `at`, or why not (`at` is then where it was). `fact`: what the
     * walk read of it, when given (kept as a commit read would be: its child's listing looks there).
     */
    fn list(&mut self, id: &[u8; 20], fact: Option<&[u8]>) -> Result<(), Stop> {
        let start = self.at;
        if self.out.len() - start < HEADER {
            return Err(Stop::NoRoom);
        }
        let commit = match fact.and_then(commit_of) {
            Some(told) => {
                let told = Arc::new(told);
                self.reader.keep_commit(*id, told.clone());
                told
            }
            None => self.commit(id)?,
        };
        // A root commit is diffed against the empty tree; every other against each parent's tree
        // (git parses a lone parent whole: parse_commit_or_die).
        let mut parents: Vec<Option<[u8; 20]>> = Vec::with_capacity(commit.parents.len().max(1));
        for parent in &commit.parents {
            parents.push(Some(self.commit(parent)?.tree));
        }
        if parents.is_empty() {
            parents.push(None);
        }
        self.out[start] = LISTED;
        self.at = start + 1;
        self.put_u32(commit.parents.len() as u32);
        self.at += 4; // the count, once known
        self.count = 0;
        let walked = if self.per_parent {
            parents.iter().try_for_each(|parent| {
                self.base.clear();
                self.walk(Some(&commit.tree), std::slice::from_ref(parent), 0)
            })
        } else {
            self.base.clear();
            self.walk(Some(&commit.tree), &parents, 0)
        };
        if let Err(stop) = walked {
            self.at = start;
            return Err(stop);
        }
        self.out[start + 5..start + 9].copy_from_slice(&self.count.to_le_bytes());
        Ok(())
    }

    /**
     * tree-diff.c's ll_diff_tree_paths: walks tree `t` and the parents' trees in lock-step, in git's
     * entry order, and emits the paths that differ from every parent (for one parent, every path
     * that differs). `neq[i]` is git's S_IFXMIN_NEQ mark: parent i's entry is past the smallest.
     */
    fn walk(&mut self, t: Option<&[u8; 20]>, parent_ids: &[Option<[u8; 20]>], depth: usize) -> Result<(), Stop> {
        if depth > MAX_DEPTH {
            return Err(Stop::LeaveToGit);
        }
        let n = parent_ids.len();
        // Parents first, as git loads them (the order does not matter here: any failure is one).
        let mut tp: Vec<Desc> = Vec::with_capacity(n);
        for id in parent_ids {
            tp.push(self.tree(id.as_ref())?);
        }
        let mut t = self.tree(t)?;
        let mut neq = vec![false; n];
        loop {
            if t.entry().is_none() && tp.iter().all(|d| d.entry().is_none()) {
                return Ok(());
            }
            if n == 1 && skip_identical(&mut t, &mut tp[0]) {
                continue;
            }
            // imin = argmin(p1..pn), marking along the way which parents are past it.
            let mut imin = 0;
            neq[0] = false;
            for i in 1..n {
                match pathcmp(&tp[i], &tp[imin]) {
                    Ordering::Less => {
                        imin = i;
                        neq[i] = false;
                    }
                    Ordering::Equal => neq[i] = false,
                    Ordering::Greater => neq[i] = true,
                }
            }
            for mark in neq.iter_mut().take(imin) {
                *mark = true;
            }
            match pathcmp(&t, &tp[imin]) {
                Ordering::Equal => {
                    // Emitted unless equal (id and mode) to one of the parents at this name.
                    let te = *t.entry().unwrap();
                    let same = (0..n).any(|i| {
                        !neq[i] && {
                            let pe = tp[i].entry().unwrap();
                            pe.mode == te.mode && tp[i].tree.id(pe) == t.tree.id(&te)
                        }
                    });
                    if !same {
                        self.emit(Some(&t), Some(&tp), &neq, imin, depth)?;
                    }
                    t.at += 1;
                    advance(&mut tp, &neq);
                }
                Ordering::Less => {
                    // Added: in no parent.
                    self.emit(Some(&t), None, &neq, imin, depth)?;
                    t.at += 1;
                }
                Ordering::Greater => {
                    // Deleted, if gone from every parent that had it; a parent past it keeps it out.
                    if neq.iter().all(|&m| !m) {
                        self.emit(None, Some(&tp), &neq, imin, depth)?;
                    }
                    advance(&mut tp, &neq);
                }
            }
        }
    }

    /**
     * tree-diff.c's emit_path: a path that differs; a tree is walked into (-r, no -t), anything else
     * written as a change, with each parent's side where the parent is at this name (else absent).
     */
    fn emit(&mut self, t: Option<&Desc>, tp: Option<&[Desc]>, neq: &[bool], imin: usize, depth: usize) -> Result<(), Stop> {
        let (name, mode, id, dir): (&[u8], u32, Option<&[u8; 20]>, bool) = match t {
            Some(t) => {
                let e = t.entry().unwrap();
                (t.tree.name(e), e.mode, Some(t.tree.id(e)), is_dir(e.mode))
            }
            None => {
                // Deleted: the name, and whether a tree, from the smallest parent's entry.
                let d = &tp.unwrap()[imin];
                let e = d.entry().unwrap();
                (d.tree.name(e), 0, None, is_dir(e.mode))
            }
        };
        if let Some(limit) = &self.limit {
            if !interesting(&self.base, name, dir, limit) {
                return Ok(());
            }
        }
        let valid = |i: usize| -> Option<(&Desc, &Entry)> {
            let tp = tp?;
            if neq[i] {
                return None;
            }
            let d = &tp[i];
            d.entry().map(|e| (d, e))
        };
        if dir {
            let parents: Vec<Option<[u8; 20]>> = (0..neq.len()).map(|i| valid(i).map(|(d, e)| *d.tree.id(e))).collect();
            let mark = self.base.len();
            self.base.extend_from_slice(name);
            self.base.push(b'/');
            let walked = self.walk(id, &parents, depth + 1);
            self.base.truncate(mark);
            return walked;
        }
        let path_len = self.base.len() + name.len();
        let size = 4 + path_len + 24 * (1 + neq.len());
        if self.out.len() - self.at < size || path_len > u32::MAX as usize {
            return Err(Stop::NoRoom);
        }
        self.put_u32(path_len as u32);
        let base = std::mem::take(&mut self.base);
        self.put_bytes(&base);
        self.base = base;
        self.put_bytes(name);
        self.put_u32(mode);
        self.put_bytes(id.unwrap_or(&[0; 20]));
        for i in 0..neq.len() {
            match valid(i) {
                Some((d, e)) => {
                    self.put_u32(e.mode);
                    self.put_bytes(d.tree.id(e));
                }
                None => {
                    self.put_u32(0);
                    self.put_bytes(&[0; 20]);
                }
            }
        }
        self.count += 1;
        Ok(())
    }
}

/**
 * With one parent: the entries from here on that are byte for byte the same in both trees (mode as
 * written, name, id) are skipped at once, as git's walk skips them one by one (same name, mode and
 * id: nothing emitted, both move on). Bytes that are the same parse into the same entries, so both
 * trees move on by as many. Whether any were skipped.
 */
#[inline]
fn skip_identical(t: &mut Desc, p: &mut Desc) -> bool {
    if t.at >= t.tree.entries().len() || p.at >= p.tree.entries().len() {
        return false;
    }
    let (ts, ps) = (t.tree.start(t.at), p.tree.start(p.at));
    let same = common_prefix(t.tree.bytes_from(ts), p.tree.bytes_from(ps));
    let mut k = 0;
    let most = (t.tree.entries().len() - t.at).min(p.tree.entries().len() - p.at);
    while k < most && t.tree.end(t.at + k) - ts <= same {
        k += 1;
    }
    t.at += k;
    p.at += k;
    k > 0
}

/**
 * Whether the entry `name` under `base` is within the limit, as git's literal pathspecs see it: the
 * entry is one of the paths or under one, or (a tree) holds one.
 */
fn interesting(base: &[u8], name: &[u8], dir: bool, limit: &[Vec<u8>]) -> bool {
    let length = base.len() + name.len();
    let path_is = |p: &[u8], upto: usize| -> bool {
        // The entry's path equals p[..upto]: base then name.
        upto == length && p[..base.len()] == *base && p[base.len()..upto] == *name
    };
    limit.iter().any(|p| {
        if p.len() == length {
            path_is(p, length)
        } else if p.len() > length {
            // A tree that holds the path.
            dir && p[length] == b'/' && path_is(p, length)
        } else {
            // Under the path: the entry's path starts with it and a '/' follows it there.
            let full = |i: usize| if i < base.len() { base[i] } else { name[i - base.len()] };
            full(p.len()) == b'/' && (0..p.len()).all(|i| full(i) == p[i])
        }
    })
}

/** git's update_tp_entries: the parents at the smallest name move on. */
#[inline]
fn advance(tp: &mut [Desc], neq: &[bool]) {
    for (d, &past) in tp.iter_mut().zip(neq) {
        if !past && d.at < d.tree.entries().len() {
            d.at += 1;
        }
    }
}

/** Lists as many of `ids`' commits as fit in `out` (with their `facts`, when given); the bytes used. */
fn list_all(odb: &Odb, cache: &TreeCache, ids: &[u8], facts: Option<&[u8]>, mode: Mode, out: &mut [u8]) -> Result<usize, String> {
    let (per_parent, limit) = match mode {
        Mode::Combined => (false, None),
        Mode::PerParent(limit) => (true, limit),
    };
    let mut lister = Lister {
        reader: TreeReader::new(odb, cache)?,
        base: Vec::with_capacity(256),
        out,
        at: 0,
        count: 0,
        limit,
        per_parent,
    };
    for (number, chunk) in ids.chunks_exact(20).enumerate() {
        let id: &[u8; 20] = chunk.try_into().unwrap();
        let start = lister.at;
        if lister.out.len() - start < HEADER {
            break;
        }
        // A fault here is one commit left to git, not a failed scan.
        let fact = facts.map(|f| &f[number * FACT_SIZE..(number + 1) * FACT_SIZE]);
        let listed = catch_unwind(AssertUnwindSafe(|| lister.list(id, fact))).unwrap_or_else(|_| {
            lister.reader.restart();
            Err(Stop::LeaveToGit)
        });
        match listed {
            Ok(()) => {}
            // Fits on its own, perhaps: the next call, where it comes first, lists it.
            Err(Stop::NoRoom) if number > 0 => {
                lister.at = start;
                break;
            }
            Err(_) => {
                lister.out[start] = LEFT_TO_GIT;
                lister.at = start + 1;
            }
        }
    }
    let Lister { reader, at, .. } = lister;
    reader.finish();
    Ok(at)
}

/** listChanges(database, commitIds, out, done, facts): as `read`, a worker thread fills `out`. */
pub extern "C" fn list_changes(env: napi_env, info: napi_callback_info) -> napi_value {
    let [db, ids, out, done, facts] = args::<5>(env, info);
    let Some(facts) = facts_of(env, facts) else {
        return throw(env, "listChanges: facts must be null, undefined or a Buffer of 44-byte facts");
    };
    queue_listing(env, "listChanges", db, ids, facts, Mode::Combined, out, done)
}

/** listParentChanges(database, commitIds, paths, out, done): listChanges, each parent apart. */
pub extern "C" fn list_parent_changes(env: napi_env, info: napi_callback_info) -> napi_value {
    let [db, ids, paths, out, done] = args::<5>(env, info);
    let Some(limit) = paths_of(env, paths) else {
        return throw(env, "listParentChanges: paths must be null or a Buffer of paths each ended by a line feed");
    };
    queue_listing(env, "listParentChanges", db, ids, None, Mode::PerParent(limit), out, done)
}

/** Both listings' calls: the arguments checked, then `list_all` on a worker thread. */
#[allow(clippy::too_many_arguments)]
fn queue_listing(
    env: napi_env,
    call: &str,
    db: napi_value,
    ids: napi_value,
    facts: Option<Vec<u8>>,
    mode: Mode,
    out: napi_value,
    done: napi_value,
) -> napi_value {
    let Some(handle) = handle_of(env, db) else { return throw(env, &format!("{call}: not a database")) };
    let Some(ids) = buffer_call::ids_of(env, ids) else {
        return throw(env, &format!("{call}: commitIds must be a Buffer of 20-byte ids"));
    };
    if facts.as_ref().is_some_and(|f| f.len() / FACT_SIZE != ids.len() / 20) {
        return throw(env, &format!("{call}: facts must be one for each commit id"));
    }
    let odb = handle.odb.lock().unwrap_or_else(|p| p.into_inner()).clone();
    let cache = handle.trees.lock().unwrap_or_else(|p| p.into_inner()).clone();
    let closed = format!("{call}: the database is closed");
    let job: buffer_call::Job = Box::new(move |out| match (odb, cache) {
        (Some(odb), Some(cache)) => list_all(&odb, &cache, &ids, facts.as_deref(), mode, out),
        _ => Err(closed),
    });
    buffer_call::queue(env, call, c"svc tree listing", out, HEADER, done, job)
}

/** `paths`: Some(None) for null or undefined, Some(paths) for a Buffer of LF-ended paths, else None. */
fn paths_of(env: napi_env, value: napi_value) -> Option<Option<Vec<Vec<u8>>>> {
    let Some(bytes) = buffer_call::optional_bytes_of(env, value)? else { return Some(None) };
    if bytes.last().is_some_and(|&b| b != b'\n') {
        return None;
    }
    let paths: Vec<Vec<u8>> = bytes.split(|&b| b == b'\n').filter(|p| !p.is_empty()).map(<[u8]>::to_vec).collect();
    // No paths is no limit, as `git log --` with none.
    Some(if paths.is_empty() { None } else { Some(paths) })
}
