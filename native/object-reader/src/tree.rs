//! Tree objects as git reads them (tree-walk.c's decode_tree_entry, cache.h's canon_mode) and git's
//! order of tree entries (base_name_compare: a tree's name compares as if followed by '/'), plus the
//! parsed trees and commits kept between listings (listing.rs).
//!
//! Everything here comes from the repository and is untrusted: a tree git would refuse (die on) is
//! refused here too, checked once when it is parsed, so that walking a parsed tree needs no checks.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::os::raw::{c_int, c_void};
use std::sync::{Arc, Mutex};

pub const MODE_DIR: u32 = 0o040000;
const S_IFMT: u32 = 0o170000;
const S_IFREG: u32 = 0o100000;
const S_IFLNK: u32 = 0o120000;
const S_IFGITLINK: u32 = 0o160000;

/** git's canon_mode: what a tree entry's mode reads as (100664 is 100644; an unknown type a gitlink). */
pub fn canon_mode(mode: u32) -> u32 {
    match mode & S_IFMT {
        S_IFREG => S_IFREG | if mode & 0o100 != 0 { 0o755 } else { 0o644 },
        S_IFLNK => S_IFLNK,
        MODE_DIR => MODE_DIR,
        _ => S_IFGITLINK,
    }
}

#[inline]
pub fn is_dir(mode: u32) -> bool {
    mode & S_IFMT == MODE_DIR
}

/** A submodule's commit: an id from another repository, never read here. */
#[inline]
pub fn is_gitlink(mode: u32) -> bool {
    mode & S_IFMT == S_IFGITLINK
}

/**
 * git's base_name_compare: names compared bytewise; where one ends, a tree's name goes on with '/'
 * (a file's with nothing), so `a` (file) < `a-b` < `a.c` < `a` (tree) < `a0`.
 */
#[inline]
pub fn base_name_compare(a: &[u8], a_mode: u32, b: &[u8], b_mode: u32) -> Ordering {
    let common = a.len().min(b.len());
    match a[..common].cmp(&b[..common]) {
        Ordering::Equal => {}
        other => return other,
    }
    let c1 = if a.len() > common { a[common] } else if is_dir(a_mode) { b'/' } else { 0 };
    let c2 = if b.len() > common { b[common] } else if is_dir(b_mode) { b'/' } else { 0 };
    c1.cmp(&c2)
}

/** One entry of a parsed tree: its name at `data[name_at..name_at + name_len]`, its id after the NUL. */
#[derive(Clone, Copy)]
#[repr(C)]
pub struct Entry {
    pub name_at: u32,
    pub name_len: u32,
    /** Canonical (canon_mode). */
    pub mode: u32,
}

/** The most a tree may hold here: its offsets are u32 (git's largest trees are a few megabytes). */
const MAX_TREE_SIZE: usize = 1 << 30;

/**
 * Parses a tree object's content as git's decode_tree_entry reads it, entry after entry, into
 * `entries` (cleared first): false where git would die ("too-short tree object", "malformed mode in
 * tree entry", "empty filename in tree entry"). The order of the entries is kept as stored, sorted or
 * not: the walk handles them as git does.
 */
pub fn parse_tree(data: &[u8], entries: &mut Vec<Entry>) -> bool {
    entries.clear();
    parse_into(data, entries).is_some()
}

fn parse_into(data: &[u8], entries: &mut Vec<Entry>) -> Option<()> {
    let len = data.len();
    if len > MAX_TREE_SIZE {
        return None;
    }
    let mut pos = 0;
    while pos < len {
        // decode_tree_entry: at least a mode digit, a space, a name byte, its NUL and the id left,
        // and the byte 21 before the end a NUL (the last entry's name ends there).
        if len - pos < 23 || data[len - 21] != 0 {
            return None;
        }
        // The modes git writes, read at once (8 bytes are there: at least 23 are left).
        let word = u64::from_le_bytes(data[pos..pos + 8].try_into().unwrap());
        let (mode, name_at) = if word & LOW7 == MODE_644 {
            (0o100644, pos + 7)
        } else if word & LOW6 == MODE_TREE {
            (MODE_DIR, pos + 6)
        } else if word & LOW7 == MODE_755 {
            (0o100755, pos + 7)
        } else {
            parse_mode(data, pos)?
        };
        if *data.get(name_at)? == 0 {
            return None; // "empty filename in tree entry"
        }
        let nul = find_nul(data, name_at)?;
        let next = nul + 21;
        if next > len {
            return None;
        }
        entries.push(Entry { name_at: name_at as u32, name_len: (nul - name_at) as u32, mode: canon_mode(mode) });
        pos = next;
    }
    Some(())
}

/**
 * A parsed tree: its entries and its bytes, held in a block of the cache (below). Cloning it is
 * taking one more reference to the block, which lives as long as a tree in it is held.
 */
#[derive(Clone)]
pub struct Tree {
    /** Held, not read: the bytes below are the block's, and live as long as it. */
    #[allow(dead_code)]
    block: Arc<Block>,
    entries: *const Entry,
    count: usize,
    data: *const u8,
    len: usize,
}

// The block's bytes a Tree points at are written once, before the Tree is made, and never again.
unsafe impl Send for Tree {}
unsafe impl Sync for Tree {}

impl Tree {
    pub fn empty() -> Tree {
        let block = Arc::new(Block::new(0));
        Tree { block, entries: std::ptr::NonNull::dangling().as_ptr(), count: 0, data: std::ptr::NonNull::dangling().as_ptr(), len: 0 }
    }

    #[inline]
    pub fn entries(&self) -> &[Entry] {
        unsafe { std::slice::from_raw_parts(self.entries, self.count) }
    }

    #[inline]
    fn data(&self) -> &[u8] {
        unsafe { std::slice::from_raw_parts(self.data, self.len) }
    }

    #[inline]
    pub fn name(&self, e: &Entry) -> &[u8] {
        &self.data()[e.name_at as usize..(e.name_at + e.name_len) as usize]
    }

    #[inline]
    pub fn id(&self, e: &Entry) -> &[u8; 20] {
        let at = (e.name_at + e.name_len + 1) as usize;
        self.data()[at..at + 20].try_into().unwrap()
    }

    /** Where entry `i` starts (its mode) in the tree's bytes. */
    #[inline]
    pub fn start(&self, i: usize) -> usize {
        if i == 0 {
            0
        } else {
            self.end(i - 1)
        }
    }

    /** Where entry `i` ends (after its id). */
    #[inline]
    pub fn end(&self, i: usize) -> usize {
        let e = &self.entries()[i];
        (e.name_at + e.name_len + 21) as usize
    }

    /** The tree's bytes from `at`. */
    #[inline]
    pub fn bytes_from(&self, at: usize) -> &[u8] {
        &self.data()[at..]
    }
}

/**
 * Memory that parsed trees are copied into, one after another, never moved: a generation of the
 * cache fills blocks, and when the generation is dropped its blocks are filled again by the next.
 * Mapped, not allocated: trees kept a while and freed in bulk left glibc's heap three to four times
 * the size of what was kept (its holes taken by the reader's short-lived buffers), 417 MB resident
 * for a 64 MB budget on rails against 156 MB with none. Reused, not unmapped: fresh pages for every
 * tree read cost git/git's history (20-60 KB root and t/ trees, changed by most commits) 40% more time.
 */
struct Block {
    ptr: std::ptr::NonNull<u8>,
    /** Mapped bytes (0: nothing mapped, the pointer dangles). */
    size: usize,
    /** Or allocated (a tree not kept, freed when its walk is done): this many u64 words. */
    words: usize,
}

unsafe impl Send for Block {}
unsafe impl Sync for Block {}

extern "C" {
    fn mmap(addr: *mut c_void, length: usize, prot: c_int, flags: c_int, fd: c_int, offset: i64) -> *mut c_void;
    fn munmap(addr: *mut c_void, length: usize) -> c_int;
}
const PROT_READ: c_int = 1;
const PROT_WRITE: c_int = 2;
const MAP_PRIVATE: c_int = 2;
const MAP_ANONYMOUS: c_int = 0x20;

impl Block {
    /** A block of at least `bytes` (page-aligned, so 8-aligned); panics when the system has no memory to give. */
    fn new(bytes: usize) -> Block {
        if bytes == 0 {
            return Block { ptr: std::ptr::NonNull::<u64>::dangling().cast(), size: 0, words: 0 };
        }
        let size = bytes.next_multiple_of(4096);
        let ptr = unsafe { mmap(std::ptr::null_mut(), size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) };
        if ptr as isize == -1 || ptr.is_null() {
            panic!("no memory for the tree cache");
        }
        Block { ptr: std::ptr::NonNull::new(ptr as *mut u8).unwrap(), size, words: 0 }
    }

    /** A block of at least `bytes` from the heap (8-aligned), for a tree that is not kept. */
    fn allocated(bytes: usize) -> Block {
        let words = bytes.div_ceil(8).max(1);
        let mut memory: Vec<u64> = Vec::with_capacity(words);
        let ptr = std::ptr::NonNull::new(memory.as_mut_ptr()).unwrap().cast();
        std::mem::forget(memory);
        Block { ptr, size: 0, words }
    }

    fn base(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }
}

impl Drop for Block {
    fn drop(&mut self) {
        if self.size > 0 {
            unsafe { munmap(self.ptr.as_ptr() as *mut c_void, self.size) };
        } else if self.words > 0 {
            drop(unsafe { Vec::from_raw_parts(self.ptr.as_ptr() as *mut u64, 0, self.words) });
        }
    }
}

/** The size of a cache block; a tree larger than a quarter of it is allocated alone. */
const BLOCK_SIZE: usize = 1 << 20;

const LOW7: u64 = (1 << 56) - 1;
const LOW6: u64 = (1 << 48) - 1;
const MODE_644: u64 = u64::from_le_bytes(*b"100644 \0");
const MODE_755: u64 = u64::from_le_bytes(*b"100755 \0");
const MODE_TREE: u64 = u64::from_le_bytes(*b"40000 \0\0");

/** get_mode: octal digits up to a space (unsigned arithmetic, wrapping as in C); the mode, and where the name starts. */
fn parse_mode(data: &[u8], pos: usize) -> Option<(u32, usize)> {
    if data[pos] == b' ' {
        return None;
    }
    let mut mode: u32 = 0;
    let mut i = pos;
    loop {
        let c = *data.get(i)?;
        i += 1;
        if c == b' ' {
            return Some((mode, i));
        }
        if !(b'0'..=b'7').contains(&c) {
            return None; // a NUL (at len - 21 at the latest) ends a mode missing its space too
        }
        mode = mode.wrapping_shl(3).wrapping_add((c - b'0') as u32);
    }
}

/** The first NUL at or after `from`, eight bytes at a time. */
#[inline]
fn find_nul(data: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    while let Some(chunk) = data.get(i..i + 8) {
        let v = u64::from_le_bytes(chunk.try_into().unwrap());
        // The lowest byte flagged is the first zero byte (a borrow only flags bytes above a zero).
        let zero = v.wrapping_sub(0x0101_0101_0101_0101) & !v & 0x8080_8080_8080_8080;
        if zero != 0 {
            return Some(i + (zero.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    data.get(i..)?.iter().position(|&b| b == 0).map(|k| i + k)
}

/** How many leading bytes `a` and `b` have in common. */
#[inline]
pub fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + 8 <= n {
        let x = u64::from_le_bytes(a[i..i + 8].try_into().unwrap());
        let y = u64::from_le_bytes(b[i..i + 8].try_into().unwrap());
        if x != y {
            return i + ((x ^ y).trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < n && a[i] == b[i] {
        i += 1;
    }
    i
}

/** A commit as `parse_commit_buffer` reads its header: its tree and its parents. */
pub struct Commit {
    pub tree: [u8; 20],
    pub parents: Vec<[u8; 20]>,
}

fn hex_value(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10), // get_oid_hex takes either case
        _ => None,
    }
}

/** The id written as 40 hex digits at the start of `text` (either case, as git's get_oid_hex). */
pub(crate) fn parse_hex(text: &[u8]) -> Option<[u8; 20]> {
    let text = text.get(..40)?;
    let mut id = [0u8; 20];
    for (k, pair) in text.chunks_exact(2).enumerate() {
        id[k] = hex_value(pair[0])? << 4 | hex_value(pair[1])?;
    }
    Some(id)
}

impl Commit {
    /**
     * commit.c's parse_commit_buffer, for what it reads of the header: `tree <hex>\n` first (git
     * refuses the commit otherwise), then every `parent <hex>\n` line that follows (a `parent ` line
     * that is not exactly that is refused too). None where git would refuse the commit.
     */
    pub fn parse(data: &[u8]) -> Option<Commit> {
        let tail = data.len();
        // tail <= bufptr + tree_entry_len + 1 || memcmp(bufptr, "tree ", 5) || bufptr[45] != '\n'
        if tail <= 46 || &data[..5] != b"tree " || data[45] != b'\n' {
            return None;
        }
        let tree = parse_hex(&data[5..45])?;
        let mut parents = Vec::new();
        let mut at = 46;
        // while (bufptr + parent_entry_len < tail && !memcmp(bufptr, "parent ", 7))
        while at + 47 < tail && &data[at..at + 7] == b"parent " {
            if tail <= at + 48 || data[at + 47] != b'\n' {
                return None;
            }
            parents.push(parse_hex(&data[at + 7..at + 47])?);
            at += 48;
        }
        Some(Commit { tree, parents })
    }
}

/**
 * By id, hashed with the standard library's keyed hash: ids come from the repository, and a cheaper
 * hash of their bytes could be made to collide by one crafted to slow the scan down.
 */
type IdMap<V> = HashMap<[u8; 20], V>;

/**
 * Two generations of a map under a budget: entries are put in the young one; one found in the old one
 * moves to the young; when the young one has spent half the budget the old one is dropped and the young
 * one takes its place. A least-recently-used cache in effect, without a clock or a sort.
 */
struct Generations<V> {
    young: IdMap<V>,
    old: IdMap<V>,
    young_cost: usize,
    half_budget: usize,
}

impl<V: Clone> Generations<V> {
    fn new(budget: usize) -> Generations<V> {
        Generations { young: IdMap::default(), old: IdMap::default(), young_cost: 0, half_budget: budget / 2 }
    }

    /** Makes room for `cost` more in the young generation: the generation dropped, if one was. */
    fn room(&mut self, cost: usize) -> Option<IdMap<V>> {
        if self.young_cost + cost <= self.half_budget {
            return None;
        }
        self.young_cost = 0;
        Some(std::mem::replace(&mut self.old, std::mem::take(&mut self.young)))
    }
}

/** The trees' generations, each with the blocks its trees are in. */
struct Trees {
    map: Generations<Tree>,
    /** The young generation's blocks (the last one filling); the old one's, kept until it is dropped. */
    young_blocks: Vec<Arc<Block>>,
    old_blocks: Vec<Arc<Block>>,
    /** Blocks of a dropped generation, to be filled again. */
    free: Vec<Block>,
    /** How much of the last young block is filled. */
    filled: usize,
}

/** What dropping a generation frees (blocks not kept for reuse): after the lock is let go. */
type Dropped = Vec<Block>;

impl Trees {
    /**
     * Room for a tree of `need` bytes: in the young generation's blocks (alone on the heap when too
     * large for a block, or to be kept at all); where, what keeping it costs the budget, and what was
     * dropped to make room. Nothing points there yet: the caller writes the tree (see `write`).
     */
    fn reserve(&mut self, need: usize) -> (Arc<Block>, usize, usize, Dropped) {
        let cost = need + 64; // and the map's slot
        let mut dropped = Vec::new();
        if cost > self.map.half_budget || need > BLOCK_SIZE / 4 {
            // Freed when the map drops it (or the walk, when it is not kept).
            if cost <= self.map.half_budget {
                dropped = self.room(cost);
            }
            return (Arc::new(Block::allocated(need)), 0, cost, dropped);
        }
        dropped = self.room(cost);
        if self.young_blocks.is_empty() || self.filled + need > BLOCK_SIZE {
            let block = self.free.pop().unwrap_or_else(|| Block::new(BLOCK_SIZE));
            self.young_blocks.push(Arc::new(block));
            self.filled = 0;
        }
        let at = self.filled;
        self.filled += need.next_multiple_of(8);
        (self.young_blocks.last().unwrap().clone(), at, cost, dropped)
    }

    /**
     * Makes room for `cost` in the young generation, dropping the old one if need be: its blocks no
     * tree is held in any more are kept to be filled again (a generation's worth), the rest returned.
     */
    fn room(&mut self, cost: usize) -> Dropped {
        let mut dropped = Vec::new();
        let Some(map) = self.map.room(cost) else { return dropped };
        self.filled = BLOCK_SIZE; // no young block is filling
        drop(map); // its trees' holds on the blocks
        let keep = self.map.half_budget / BLOCK_SIZE + 1;
        for block in std::mem::replace(&mut self.old_blocks, std::mem::take(&mut self.young_blocks)) {
            // A block a walk still holds a tree of (or one being written) is let go: its last holder frees it.
            if let Ok(block) = Arc::try_unwrap(block) {
                if self.free.len() < keep {
                    self.free.push(block);
                } else {
                    dropped.push(block);
                }
            }
        }
        dropped
    }

    /** Keeps `tree` (unless larger than a generation may hold). */
    fn keep(&mut self, id: [u8; 20], tree: &Tree, cost: usize) {
        if cost <= self.map.half_budget {
            self.map.young.insert(id, tree.clone());
            self.map.young_cost += cost;
        }
    }

    fn get(&mut self, id: &[u8; 20]) -> (Option<Tree>, Dropped) {
        if let Some(tree) = self.map.young.get(id) {
            return (Some(tree.clone()), Vec::new());
        }
        let Some(old) = self.map.old.remove(id) else { return (None, Vec::new()) };
        // Moved to the young generation (copied: the old one's blocks go with it).
        let (block, at, cost, dropped) = self.reserve(old.entries().len() * ENTRY_SIZE + old.len);
        let tree = unsafe { write(block, at, old.entries(), old.data()) };
        self.keep(*id, &tree, cost);
        (Some(tree), dropped)
    }
}

const ENTRY_SIZE: usize = std::mem::size_of::<Entry>();

/**
 * Writes a tree's entries and bytes at `at` in `block`, and makes the Tree that reads them.
 * Safety: [at, at + the size) is room `reserve` gave, which nothing else writes or reads.
 */
unsafe fn write(block: Arc<Block>, at: usize, entries: &[Entry], data: &[u8]) -> Tree {
    // `at` is 8-aligned: the entries (4-byte fields) first, then the bytes.
    let entry_bytes = std::mem::size_of_val(entries);
    let base = block.base().add(at);
    std::ptr::copy_nonoverlapping(entries.as_ptr() as *const u8, base, entry_bytes);
    std::ptr::copy_nonoverlapping(data.as_ptr(), base.add(entry_bytes), data.len());
    Tree { entries: base as *const Entry, count: entries.len(), data: base.add(entry_bytes), len: data.len(), block }
}

/**
 * Parsed trees by id (an id names the same bytes in any repository), under a byte budget, and the
 * headers of commits read lately (a commit's parent is usually the next commit listed). Shared by the
 * listings of one database, whichever thread they run on.
 */
pub struct TreeCache {
    trees: Mutex<Trees>,
    commits: Mutex<Generations<Arc<Commit>>>,
}

/**
 * Parsed trees kept. Most trees found here are those of the commit listed just before (a parent's
 * trees are its child's, unchanged), so a larger budget finds few more: on rails (160,769 commits)
 * 8 MB missed 857,331 trees and 64 MB 804,200, in the same 7 s. git/git's large, often changed root
 * and t/ trees gain more from it: 10.9 s at 8 MB, 10.1 at 16, 9.8 at 24, 9.6 at 32, 9.2 at 64, for
 * about 1 MB of resident memory a MB of budget. 8 MB: the scan's process is what holds the summed
 * memory over its 300 MB on rails and git/git, and a second of git/git's listing is cheaper.
 */
pub const TREE_BUDGET: usize = 8 << 20;
/** Commit headers kept (about 100 bytes each with their parents). */
const COMMIT_BUDGET: usize = 4 << 20;

impl TreeCache {
    pub fn new() -> TreeCache {
        TreeCache {
            trees: Mutex::new(Trees {
                map: Generations::new(TREE_BUDGET),
                young_blocks: Vec::new(),
                old_blocks: Vec::new(),
                free: Vec::new(),
                filled: BLOCK_SIZE,
            }),
            commits: Mutex::new(Generations::new(COMMIT_BUDGET)),
        }
    }

    // What a generation dropped frees is freed after the lock is let go.

    pub fn tree(&self, id: &[u8; 20]) -> Option<Tree> {
        let (tree, dropped) = self.trees.lock().unwrap_or_else(|p| p.into_inner()).get(id);
        drop(dropped);
        tree
    }

    /** Keeps the tree parsed into `entries` from `data`; the tree, as kept. */
    pub fn put_tree(&self, id: [u8; 20], entries: &[Entry], data: &[u8]) -> Tree {
        let need = std::mem::size_of_val(entries) + data.len();
        let (block, at, cost, dropped) = self.trees.lock().unwrap_or_else(|p| p.into_inner()).reserve(need);
        drop(dropped);
        // Copied with the lock let go (a tree is up to hundreds of kilobytes): the room is this call's.
        let tree = unsafe { write(block, at, entries, data) };
        self.trees.lock().unwrap_or_else(|p| p.into_inner()).keep(id, &tree, cost);
        tree
    }

    pub fn commit(&self, id: &[u8; 20]) -> Option<Arc<Commit>> {
        let mut commits = self.commits.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(commit) = commits.young.get(id) {
            return Some(commit.clone());
        }
        let commit = commits.old.remove(id)?;
        let dropped = Self::keep_commit(&mut commits, *id, commit.clone());
        drop(commits);
        drop(dropped);
        Some(commit)
    }

    pub fn put_commit(&self, id: [u8; 20], commit: Arc<Commit>) {
        let mut commits = self.commits.lock().unwrap_or_else(|p| p.into_inner());
        let dropped = Self::keep_commit(&mut commits, id, commit);
        drop(commits);
        drop(dropped);
    }

    fn keep_commit(commits: &mut Generations<Arc<Commit>>, id: [u8; 20], commit: Arc<Commit>) -> Option<IdMap<Arc<Commit>>> {
        let cost = 96 + commit.parents.capacity() * 20;
        let dropped = commits.room(cost);
        commits.young.insert(id, commit);
        commits.young_cost += cost;
        dropped
    }
}
