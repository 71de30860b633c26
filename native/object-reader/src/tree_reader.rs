//! Commits and trees read by id and parsed, kept in the database's cache of parsed trees: what the
//! listing of tree changes (listing.rs) and the diff pass's index (diff_index.rs) both walk.

use crate::odb::{Answer, Odb, Scratch, COMMIT, TREE};
use crate::tree::{parse_tree, Commit, Entry, Tree, TreeCache};
use std::sync::Arc;

/**
 * The largest commit or tree read (git's largest trees are a few megabytes, commits a few kilobytes):
 * a larger one is not read here, and a damaged size never makes this allocate more.
 */
const MAX_OBJECT: usize = 64 << 20;
/** The object buffer's first size; it grows to the largest tree read. */
const FIRST_BUFFER: usize = 256 << 10;

/** An object that could not be read here: missing, damaged, too large, or of another type. */
pub struct Unreadable;

pub struct TreeReader<'a> {
    odb: &'a Odb,
    cache: &'a TreeCache,
    scratch: Scratch,
    /** Objects are read into this (grown as needed), then parsed out of it. */
    buffer: Vec<u8>,
    empty: Tree,
    /** A tree's entries, parsed here before the tree is kept. */
    entries: Vec<Entry>,
}

impl<'a> TreeReader<'a> {
    /** A reader for this thread (its Scratch is the thread's, given back by `finish`). */
    pub fn new(odb: &'a Odb, cache: &'a TreeCache) -> Result<TreeReader<'a>, String> {
        Ok(TreeReader {
            odb,
            cache,
            scratch: Scratch::of_this_thread()?,
            buffer: vec![0; FIRST_BUFFER],
            empty: Tree::empty(),
            entries: Vec::new(),
        })
    }

    /** Gives the thread's Scratch back for its next call. */
    pub fn finish(self) {
        self.scratch.keep_for_this_thread();
    }

    /** After a fault mid-read: the inflate stream may be mid-object, so it starts again. */
    pub fn restart(&mut self) {
        if let Ok(fresh) = Scratch::new() {
            self.scratch = fresh;
        }
    }

    /** Reads object `id` into `buffer`, which must be of type `kind`; its size. */
    fn read(&mut self, id: &[u8; 20], kind: u8) -> Result<usize, Unreadable> {
        loop {
            match self.odb.read(id, MAX_OBJECT as u64, &mut self.buffer, &mut self.scratch) {
                Answer::Found(found, size) if found == kind => return Ok(size),
                Answer::NoRoom(found, size) if found == kind && size <= MAX_OBJECT as u64 && size as usize > self.buffer.len() => {
                    self.buffer.resize(size as usize, 0);
                }
                _ => return Err(Unreadable),
            }
        }
    }

    pub fn commit(&mut self, id: &[u8; 20]) -> Result<Arc<Commit>, Unreadable> {
        if let Some(commit) = self.cache.commit(id) {
            return Ok(commit);
        }
        let size = self.read(id, COMMIT)?;
        let commit = Arc::new(Commit::parse(&self.buffer[..size]).ok_or(Unreadable)?);
        self.cache.put_commit(*id, commit.clone());
        Ok(commit)
    }

    /** Keeps `commit` as if read here (the walk read it: commit_facts.rs). */
    pub fn keep_commit(&mut self, id: [u8; 20], commit: Arc<Commit>) {
        self.cache.put_commit(id, commit);
    }

    /** The tree `id` (the empty tree for none), as fill_tree_descriptor reads it. */
    pub fn tree(&mut self, id: Option<&[u8; 20]>) -> Result<Tree, Unreadable> {
        let Some(id) = id else { return Ok(self.empty.clone()) };
        if let Some(tree) = self.cache.tree(id) {
            return Ok(tree);
        }
        let size = self.read(id, TREE)?;
        if !parse_tree(&self.buffer[..size], &mut self.entries) {
            return Err(Unreadable);
        }
        Ok(self.cache.put_tree(*id, &self.entries, &self.buffer[..size]))
    }
}
