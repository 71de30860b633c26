//! The commit walk's reads done ahead of it, on two threads (commit_walk.rs). The walk cannot split
//! its own reading: each commit's parents are known only once it is read. But git writes a pack's
//! commits first, one after another, in about the order the walk meets them; so the pack is cut into
//! chunks at the starts of a sample of its entries (their offsets from the index), and two threads
//! read the chunks just ahead of where the walk is, each chunk's entries one after another (an entry
//! ends where its compressed data does) until one that is not a commit stored whole (tags, which git
//! writes among the commits it tags, are read past). The walk takes
//! a commit from there when its chunk is read, and reads it itself otherwise.
//!
//! Nothing is taken on trust: an entry is looked for by the offset the index gives for the object,
//! and what was parsed there is the same commit parsed from the same bytes. A chunk whose reading
//! fails or meets another kind of entry simply ends there.

use crate::odb::{Odb, Scratch, COMMIT};
use crate::tree::Commit;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Condvar, Mutex};

/** Packs with fewer objects are walked without reading ahead (the threads would cost more). */
pub const FROM_OBJECTS: usize = 20_000;
/** Entries sampled for the chunks' starts. */
pub const SAMPLES: usize = 16_384;
/** Chunks read ahead of the walk's, at most (and one behind it kept). */
const WINDOW: usize = 8;
/** Threads reading ahead. */
const THREADS: usize = 2;
/**
 * The walk judges the reading ahead by this many commits at a time, and gives it up when fewer than
 * half were found read: a pack whose commits are not in the walk's order (as a server sends it:
 * eslint's, rails' and git/git's fetched packs hold most commits among trees and blobs) only costs
 * the walk there (10-15% slower on rails and git/git).
 */
pub const JUDGED_EVERY: u32 = 512;

/** A commit as the walk queues it. */
pub struct Parsed {
    pub date: u64,
    pub tree: [u8; 20],
    pub parents: Vec<[u8; 20]>,
}

/** A chunk's commits by offset (in order), each taken at most once. */
type Chunk = Vec<(u64, Option<Parsed>)>;

struct State {
    /** The next chunk a thread starts on, and the first it may not start on yet. */
    next: usize,
    allowed: usize,
    /** Each chunk's commits once read (None before, and once let go), and whether a thread took it. */
    chunks: Vec<Option<Chunk>>,
    taken: Vec<bool>,
    done: Vec<bool>,
    /** Chunks below this are let go. */
    kept_from: usize,
    /** Threads reading (the walk waits for a chunk only while there is one). */
    threads: usize,
    stop: bool,
}

pub struct ReadAhead<'a> {
    odb: &'a Odb,
    pack: usize,
    /** Where each chunk starts, in order; a chunk ends where the next starts (the last at the pack's end). */
    starts: Vec<u64>,
    state: Mutex<State>,
    changed: Condvar,
    parse: fn(&[u8]) -> Option<Parsed>,
    max_object: usize,
}

impl<'a> ReadAhead<'a> {
    /**
     * For the largest pack, when it holds `from` objects or more (FROM_OBJECTS but in tests), its
     * chunks cut at up to `most_samples` entries (SAMPLES): None otherwise, or where its index cannot
     * be read.
     */
    pub fn new(odb: &'a Odb, parse: fn(&[u8]) -> Option<Parsed>, max_object: usize, (from, most_samples): (usize, usize)) -> Option<ReadAhead<'a>> {
        let (pack, count) = odb.packs().iter().map(|p| p.count()).enumerate().max_by_key(|&(_, n)| n)?;
        if count == 0 || count < from || most_samples == 0 {
            return None;
        }
        let samples = count.min(most_samples);
        // The first chunk at the first entry (after the pack's 12-byte header): where git writes commits.
        let mut starts = Vec::with_capacity(samples + 1);
        starts.push(12);
        for i in 0..samples {
            starts.push(odb.packs()[pack].offset_of(i * count / samples).ok()?);
        }
        starts.sort_unstable();
        starts.dedup();
        let n = starts.len();
        Some(ReadAhead {
            odb,
            pack,
            starts,
            state: Mutex::new(State {
                next: 0,
                allowed: WINDOW,
                chunks: (0..n).map(|_| None).collect(),
                taken: vec![false; n],
                done: vec![false; n],
                kept_from: 0,
                threads: 0,
                stop: false,
            }),
            changed: Condvar::new(),
            parse,
            max_object,
        })
    }

    /** Runs `walk` with the threads reading ahead of it; they stop when it returns. */
    pub fn run<T>(&self, walk: impl FnOnce() -> T) -> T {
        std::thread::scope(|scope| {
            for _ in 0..THREADS {
                self.lock().threads += 1;
                let spawned = std::thread::Builder::new().name("svc walk read-ahead".into()).spawn_scoped(scope, || self.read_chunks());
                if spawned.is_err() {
                    self.lock().threads -= 1;
                    break; // the walk reads what no thread does
                }
            }
            let walked = walk();
            self.lock().stop = true;
            self.changed.notify_all();
            walked
        })
    }

    /**
     * The commit at `offset` in pack `pack`, when read ahead: waits for its chunk when a thread is
     * on it or will be; None when the walk is to read it itself.
     */
    pub fn take(&self, pack: usize, offset: u64) -> Option<Parsed> {
        if pack != self.pack {
            return None;
        }
        let c = self.starts.partition_point(|&s| s <= offset).checked_sub(1)?;
        let mut state = self.lock();
        let (next, allowed) = (state.next, state.allowed);
        if !state.taken[c] && state.next <= c {
            // Not started: the threads move on to it (the chunks before it are not wanted).
            state.next = c;
        }
        state.allowed = state.allowed.max(c + WINDOW);
        if (state.next, state.allowed) != (next, allowed) {
            self.changed.notify_all();
        }
        loop {
            if state.done[c] {
                break;
            }
            // Waited for only while a thread reads it: a chunk not started (the walk has jumped to
            // another part of the history) is the walk's to read, one commit, not a chunk's worth.
            if !state.taken[c] || state.threads == 0 {
                return None;
            }
            state = self.changed.wait(state).unwrap_or_else(|p| p.into_inner());
        }
        // Chunks more than one behind this one are let go.
        let behind = c.saturating_sub(1);
        for at in state.kept_from..behind {
            state.chunks[at] = None;
        }
        state.kept_from = state.kept_from.max(behind);
        let chunk = state.chunks[c].as_mut()?;
        let at = chunk.binary_search_by_key(&offset, |&(o, _)| o).ok()?;
        chunk[at].1.take()
    }

    /** Stops the threads (the walk is not finding its commits read ahead: the pack is not in its order). */
    pub fn give_up(&self) {
        self.lock().stop = true;
        self.changed.notify_all();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /** A thread's work: the next chunk within the window, until the walk ends. */
    fn read_chunks(&self) {
        let mut buffer = vec![0u8; 64 << 10];
        let Ok(mut scratch) = Scratch::new() else {
            self.lock().threads -= 1;
            self.changed.notify_all();
            return;
        };
        loop {
            let c = {
                let mut state = self.lock();
                loop {
                    if state.stop {
                        state.threads -= 1;
                        return;
                    }
                    if state.next < state.allowed && state.next < self.starts.len() {
                        break;
                    }
                    state = self.changed.wait(state).unwrap_or_else(|p| p.into_inner());
                }
                let c = state.next;
                state.next += 1;
                state.taken[c] = true;
                c
            };
            let chunk = catch_unwind(AssertUnwindSafe(|| self.read_chunk(c, &mut scratch, &mut buffer))).unwrap_or_else(|_| {
                if let Ok(fresh) = Scratch::new() {
                    scratch = fresh; // the inflate stream may be mid-object
                }
                Vec::new()
            });
            let mut state = self.lock();
            if c >= state.kept_from {
                state.chunks[c] = Some(chunk);
            }
            state.done[c] = true;
            self.changed.notify_all();
        }
    }

    /** Chunk `c`'s entries one after another, while they are commits (or tags) stored whole. */
    fn read_chunk(&self, c: usize, scratch: &mut Scratch, buffer: &mut Vec<u8>) -> Chunk {
        let end = self.starts.get(c + 1).copied().unwrap_or(u64::MAX);
        let mut at = self.starts[c];
        let mut chunk = Vec::new();
        while at < end {
            let Ok(Some((kind, size, next))) = self.odb.read_whole_commit_at(self.pack, at, self.max_object, buffer, scratch) else { break };
            if kind == COMMIT {
                let Some(parsed) = (self.parse)(&buffer[..size]) else { break };
                chunk.push((at, Some(parsed)));
            }
            if next <= at {
                break;
            }
            at = next;
        }
        chunk
    }
}

/** A commit's parse as the walk makes it: `date` read by `commit_date` from after its parents. */
pub fn parse_with(data: &[u8], commit_date: fn(&[u8]) -> u64) -> Option<Parsed> {
    let Commit { tree, parents } = Commit::parse(data)?;
    let date = commit_date(&data[46 + 48 * parents.len()..]);
    Some(Parsed { date, tree, parents })
}
