//! Every commit the refs reach, in the order `git rev-list --all` lists them (git 2.39's
//! revision.c without limiting: a queue by committer date, newest first, a commit met again
//! skipped), read by this reader instead of a `git rev-list`: git maps each pack's whole index
//! and keeps an object of about 200 bytes for every commit it meets, this walk a bit for every
//! object of a pack and its queue.
//!
//! JavaScript: walkCommits(database, tips, withParents, fd, out, done) -> done(error, bytes) on the
//! main thread. `tips` are 20-byte ids in the order `--all` adds them (every ref's, by name, then
//! HEAD's; tags are peeled here, trees and blobs skipped); the walk writes to the file `fd` from its
//! start one line a commit, `<id>\n` or with `withParents` `<id> <parent>...\n` (as `git rev-list
//! --parents`), and `out` (at least 4 bytes) gets the number of commits (u32 LE). A commit, tag or
//! parent it cannot read (missing, damaged, not a commit) fails the call: git is then to walk.
//! walkCommits(database, tips, withParents, fd, out, done, factsFd): and each commit's fact (its
//! tree and parents: commit_facts.rs) to the file `factsFd` from its start, in the same order.

use crate::commit_facts::{push_fact, FACT_SIZE};
use crate::napi::*;
use crate::odb::{hex as hex_id, Answer, Odb, Scratch, COMMIT, TAG};
use crate::tree::{parse_hex, Commit};
use crate::{args, buffer_call, handle_of, throw};
use std::cmp::{Ordering, Reverse};
use std::collections::{BinaryHeap, HashSet};
use std::fs::File;
use std::mem::ManuallyDrop;
use std::os::fd::FromRawFd;
use std::os::unix::fs::FileExt;

/** The largest commit or tag read (a commit's message may be long; git's are kilobytes). */
const MAX_OBJECT: usize = 64 << 20;
/** Lines are gathered into writes of about this much. */
const WRITE_CHUNK: usize = 1 << 20;
/** Tags naming tags, at most (git peels without a limit; a loop of tags cannot be written). */
const MAX_PEEL: usize = 64;

/** A commit queued: what the walk orders it by and what it goes on to. */
struct Queued {
    date: u64,
    /** When it was queued: among equal dates, the earlier first (git inserts after its equals). */
    order: Reverse<u64>,
    id: [u8; 20],
    tree: [u8; 20],
    parents: Vec<[u8; 20]>,
}

impl PartialEq for Queued {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Queued {}
impl PartialOrd for Queued {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Queued {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.date, self.order).cmp(&(other.date, other.order))
    }
}

/**
 * The commits met so far: a bit for each object of each pack (by its place in the pack's index),
 * and the ids of loose ones.
 */
struct Seen {
    packs: Vec<Vec<u64>>,
    loose: HashSet<[u8; 20]>,
}

impl Seen {
    /** Marks the object; whether it was not marked before. */
    fn mark(&mut self, id: &[u8; 20], place: Option<(usize, usize)>) -> bool {
        match place {
            Some((p, k)) => {
                let new = !self.has_packed(p, k);
                self.packs[p][k / 64] |= 1u64 << (k % 64);
                new
            }
            None => self.loose.insert(*id),
        }
    }

    /** Whether the `k`-th object of pack `p` is marked. */
    fn has_packed(&self, p: usize, k: usize) -> bool {
        self.packs[p][k / 64] & (1u64 << (k % 64)) != 0
    }
}

/** One walk's reading of objects. */
struct Walker<'a> {
    odb: &'a Odb,
    scratch: Scratch,
    buffer: Vec<u8>,
    seen: Seen,
    queue: BinaryHeap<Queued>,
    queued: u64,
}

impl<'a> Walker<'a> {
    /** Reads object `id` (at `place` when packed) into the buffer: its type and size. */
    fn read(&mut self, id: &[u8; 20], place: Option<(usize, usize)>) -> Result<(u8, usize), String> {
        loop {
            let answer = match place {
                Some(place) => self.odb.read_placed(place, MAX_OBJECT as u64, &mut self.buffer, &mut self.scratch),
                None => self.odb.read(id, MAX_OBJECT as u64, &mut self.buffer, &mut self.scratch),
            };
            match answer {
                Answer::Found(kind, size) => return Ok((kind, size)),
                Answer::NoRoom(_, size) if size <= MAX_OBJECT as u64 && size as usize > self.buffer.len() => {
                    self.buffer.resize(size as usize, 0);
                }
                _ => return Err(format!("cannot read object {}", hex_id(id))),
            }
        }
    }

    fn place(&self, id: &[u8; 20]) -> Result<Option<(usize, usize)>, String> {
        self.odb.packed_place(id)
    }

    /** Queues commit `id` (read now, for its date and parents) unless it was met before. */
    fn meet(&mut self, id: &[u8; 20]) -> Result<(), String> {
        let place = self.place(id)?;
        if !self.seen.mark(id, place) {
            return Ok(());
        }
        let (kind, size) = self.read(id, place)?;
        if kind != COMMIT {
            return Err(format!("{} is not a commit", hex_id(id)));
        }
        self.queue_commit(id, size)
    }

    fn queue_commit(&mut self, id: &[u8; 20], size: usize) -> Result<(), String> {
        let data = &self.buffer[..size];
        let commit = Commit::parse(data).ok_or_else(|| format!("cannot parse commit {}", hex_id(id)))?;
        let date = commit_date(&data[46 + 48 * commit.parents.len()..]);
        self.queue.push(Queued { date, order: Reverse(self.queued), id: *id, tree: commit.tree, parents: commit.parents });
        self.queued += 1;
        Ok(())
    }

    /**
     * A ref's object, as `--all` adds it: a commit is queued (once); a tag is peeled to what it
     * names; a tree or a blob is no commit to walk.
     */
    fn start_from(&mut self, tip: &[u8; 20]) -> Result<(), String> {
        let mut id = *tip;
        for _ in 0..MAX_PEEL {
            let place = self.place(&id)?;
            // A commit met already is not read again (the refs of a busy history share tips); only
            // commits are ever marked.
            if let Some((p, k)) = place {
                if self.seen.has_packed(p, k) {
                    return Ok(());
                }
            }
            let (kind, size) = self.read(&id, place)?;
            match kind {
                COMMIT => {
                    if !self.seen.mark(&id, place) {
                        return Ok(());
                    }
                    return self.queue_commit(&id, size);
                }
                TAG => id = tagged(&self.buffer[..size]).ok_or_else(|| format!("cannot parse tag {}", hex_id(&id)))?,
                _ => return Ok(()),
            }
        }
        Err(format!("tags nested deeper than {MAX_PEEL} at {}", hex_id(tip)))
    }
}

/**
 * commit.c's parse_commit_date (git 2.39), from the line after the parents: the number after the
 * first '>' of a `committer` line that follows an `author` line; 0 when the header is not so. Later
 * gits read it after the line's last '>': the two differ only on a malformed committer line, and
 * then only in the order of the list, never in what it holds.
 */
fn commit_date(rest: &[u8]) -> u64 {
    if rest.len() <= 6 || &rest[..6] != b"author" {
        return 0;
    }
    let Some(eol) = rest.iter().position(|&b| b == b'\n') else { return 0 };
    let line = &rest[eol + 1..];
    if line.len() <= 9 || &line[..9] != b"committer" {
        return 0;
    }
    let Some(gt) = line.iter().position(|&b| b == b'>') else { return 0 };
    let date = &line[gt + 1..];
    // git also wants a line feed after it before the buffer's end.
    let Some(end) = date.iter().position(|&b| b == b'\n') else { return 0 };
    if gt + 1 + end + 1 >= line.len() {
        return 0;
    }
    strtoumax(&date[..end])
}

/** C's strtoumax(text, NULL, 10): leading white space, a sign, digits; saturating; a minus negates. */
fn strtoumax(text: &[u8]) -> u64 {
    let mut at = 0;
    while at < text.len() && matches!(text[at], b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r') {
        at += 1;
    }
    let mut negative = false;
    if at < text.len() && (text[at] == b'+' || text[at] == b'-') {
        negative = text[at] == b'-';
        at += 1;
    }
    let mut value: u64 = 0;
    let mut overflow = false;
    let start = at;
    while at < text.len() && text[at].is_ascii_digit() {
        match value.checked_mul(10).and_then(|v| v.checked_add((text[at] - b'0') as u64)) {
            Some(v) => value = v,
            None => overflow = true,
        }
        at += 1;
    }
    if at == start {
        return 0;
    }
    if overflow {
        return u64::MAX;
    }
    if negative {
        value.wrapping_neg()
    } else {
        value
    }
}

/** The id a tag names: its first line, `object <hex>`. */
fn tagged(data: &[u8]) -> Option<[u8; 20]> {
    if data.len() < 48 || &data[..7] != b"object " || data[47] != b'\n' {
        return None;
    }
    parse_hex(&data[7..47])
}

fn push_hex(line: &mut Vec<u8>, id: &[u8; 20]) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    for &b in id {
        line.push(DIGITS[(b >> 4) as usize]);
        line.push(DIGITS[(b & 15) as usize]);
    }
}

/** Bytes gathered for a file, written at its end once there are WRITE_CHUNK of them. */
struct Output<'a> {
    file: &'a File,
    pending: Vec<u8>,
    written: u64,
}

impl<'a> Output<'a> {
    fn new(file: &'a File) -> Output<'a> {
        Output { file, pending: Vec::with_capacity(WRITE_CHUNK + 4096), written: 0 }
    }

    /** Writes what is gathered when there is enough, or all of it at the `end`; the bytes written. */
    fn flush(&mut self, end: bool) -> Result<u64, String> {
        if end || self.pending.len() >= WRITE_CHUNK {
            self.file.write_all_at(&self.pending, self.written).map_err(|e| format!("cannot write the commit list: {e}"))?;
            self.written += self.pending.len() as u64;
            self.pending.clear();
        }
        Ok(self.written)
    }
}

/**
 * The walk: every commit's line written to `file`, and its fact to `facts` when given; the bytes
 * written to `file` and the commits.
 */
fn walk(odb: &Odb, tips: &[u8], with_parents: bool, file: &File, facts: Option<&File>) -> Result<(u64, u32), String> {
    let mut walker = Walker {
        odb,
        scratch: Scratch::of_this_thread()?,
        buffer: vec![0; 64 << 10],
        seen: Seen { packs: odb.packs().iter().map(|p| vec![0u64; p.count().div_ceil(64)]).collect(), loose: HashSet::new() },
        queue: BinaryHeap::new(),
        queued: 0,
    };
    let result = (|| {
        for tip in tips.chunks_exact(20) {
            walker.start_from(tip.try_into().unwrap())?;
        }
        let mut lines = Output::new(file);
        let mut fact_out = facts.map(Output::new);
        let mut count = 0u32;
        while let Some(commit) = walker.queue.pop() {
            for parent in &commit.parents {
                walker.meet(parent)?;
            }
            let line = &mut lines.pending;
            push_hex(line, &commit.id);
            if with_parents {
                for parent in &commit.parents {
                    line.push(b' ');
                    push_hex(line, parent);
                }
            }
            line.push(b'\n');
            lines.flush(false)?;
            if let Some(out) = fact_out.as_mut() {
                push_fact(&mut out.pending, &commit.tree, &commit.parents);
                out.flush(false)?;
            }
            count = count.checked_add(1).ok_or("more than 4 billion commits")?;
        }
        if let Some(out) = fact_out.as_mut() {
            let written = out.flush(true)?;
            debug_assert_eq!(written, count as u64 * FACT_SIZE as u64);
        }
        Ok((lines.flush(true)?, count))
    })();
    let Walker { scratch, .. } = walker;
    scratch.keep_for_this_thread();
    result
}

/**
 * walkCommits(database, tips, withParents, fd, out, done, factsFd): the walk on a worker thread
 * (worker_pool.rs); `factsFd` null or undefined for no facts.
 */
pub extern "C" fn walk_commits(env: napi_env, info: napi_callback_info) -> napi_value {
    let [db, tips, with_parents, fd, out, done, facts_fd] = args::<7>(env, info);
    let Some(handle) = handle_of(env, db) else { return throw(env, "walkCommits: not a database") };
    let Some(tips) = buffer_call::ids_of(env, tips) else {
        return throw(env, "walkCommits: tips must be a Buffer of 20-byte ids");
    };
    let mut parents = false;
    if unsafe { napi_get_value_bool(env, with_parents, &mut parents) } != NAPI_OK {
        return throw(env, "walkCommits: withParents must be a boolean");
    }
    let mut descriptor = -1;
    if unsafe { napi_get_value_int32(env, fd, &mut descriptor) } != NAPI_OK || descriptor < 0 {
        return throw(env, "walkCommits: fd must be a file descriptor");
    }
    let Some(facts_descriptor) = descriptor_of(env, facts_fd) else {
        return throw(env, "walkCommits: factsFd must be a file descriptor, null or undefined");
    };
    let odb = handle.odb.lock().unwrap_or_else(|p| p.into_inner()).clone();
    let job: buffer_call::Job = Box::new(move |out| {
        let Some(odb) = odb else { return Err("walkCommits: the database is closed".into()) };
        // The caller's descriptors: written, never closed here.
        let file = ManuallyDrop::new(unsafe { File::from_raw_fd(descriptor) });
        let facts = facts_descriptor.map(|fd| ManuallyDrop::new(unsafe { File::from_raw_fd(fd) }));
        let walked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| walk(&odb, &tips, parents, &file, facts.as_deref())))
            .unwrap_or_else(|_| Err("walkCommits: the walk failed".into()))?;
        out[..4].copy_from_slice(&walked.1.to_le_bytes());
        usize::try_from(walked.0).map_err(|_| "walkCommits: the list is too large".into())
    });
    buffer_call::queue(env, "walkCommits", c"svc commit walk", out, 4, done, job)
}

/** An optional descriptor: Some(None) for null or undefined, Some(fd) for one, None for anything else. */
fn descriptor_of(env: napi_env, value: napi_value) -> Option<Option<i32>> {
    if buffer_call::is_absent(env, value)? {
        return Some(None);
    }
    let mut descriptor = -1;
    if unsafe { napi_get_value_int32(env, value, &mut descriptor) } != NAPI_OK || descriptor < 0 {
        return None;
    }
    Some(Some(descriptor))
}
