//! An object database as git lays it out: packs, loose objects, and the directories named as
//! alternates. Reads an object by id the way `git cat-file --batch` would answer it, or says that it
//! should be left to git (anything damaged, too large, or laid out in a way not read here).

use crate::delta;
use crate::pack::{Pack, INDEX_MAP_LIMIT};
use crate::zlib::{Inflater, Step};
use std::collections::{HashMap, HashSet};
use std::fs;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

pub const COMMIT: u8 = 1;
pub const TREE: u8 = 2;
pub const BLOB: u8 = 3;
pub const TAG: u8 = 4;
const OFS_DELTA: u8 = 6;
const REF_DELTA: u8 = 7;

/** git follows alternates this deep (alternates.c: a deeper chain is an error). */
const MAX_ALTERNATE_DEPTH: usize = 5;
/** A delta chain longer than this is treated as damage (REF_DELTA entries could form a loop). */
const MAX_CHAIN: usize = 10_000;
/** No object in a delta chain is rebuilt in memory when larger than this (git would stream it). */
const MAX_BASE_SIZE: u64 = 256 << 20;
/**
 * Rebuilt delta bases kept for the deltas that follow (git's core.deltaBaseCacheLimit, which the scan
 * sets to 8 MB for cat-file: blobs are asked one file's versions after another). The scan of eslint
 * took the same time with 8 and 32 MB, and 166-183 against 217 MB resident.
 */
const CACHE_BUDGET: usize = 8 << 20;

pub enum Answer {
    /** Written at the start of the room given: its type and size. */
    Found(u8, usize),
    /** No such object in any pack or loose, and every pack could be read. */
    Missing,
    /** Git should answer: the object is damaged, too large, or where this reader does not look. */
    LeaveToGit(u8, u64),
    /** Not larger than allowed, but than the room given: to be read again with more room. */
    NoRoom(u8, u64),
}

pub struct Odb {
    packs: Vec<Pack>,
    object_dirs: Vec<PathBuf>,
    /** Something here is not read by this reader (an unreadable index, a quoted alternate): an id not
     * found is then left to git rather than called missing. */
    incomplete: bool,
    cache: Mutex<BaseCache>,
}

/**
 * The largest pack index mapped: pack.rs's INDEX_MAP_LIMIT, or SVC_PACK_INDEX_MAP_LIMIT (bytes; 0
 * reads every index with positioned reads), which the tests set to read each way.
 */
fn index_map_limit() -> u64 {
    std::env::var("SVC_PACK_INDEX_MAP_LIMIT").ok().and_then(|v| v.parse().ok()).unwrap_or(INDEX_MAP_LIMIT)
}

fn parse_type(name: &[u8]) -> Option<u8> {
    match name {
        b"commit" => Some(COMMIT),
        b"tree" => Some(TREE),
        b"blob" => Some(BLOB),
        b"tag" => Some(TAG),
        _ => None,
    }
}

pub(crate) fn hex(id: &[u8; 20]) -> String {
    id.iter().map(|b| format!("{b:02x}")).collect()
}

/** Where an object's bytes are: an entry of a pack, or a loose file. */
enum Location {
    Packed(usize, u64),
    Loose(PathBuf),
}

impl Odb {
    pub fn open(objects_dir: &Path, extra_alternates: &[PathBuf]) -> Result<Odb, String> {
        if !objects_dir.join("pack").is_dir() && !objects_dir.join("info").is_dir() {
            return Err(format!("not a git object directory: {}", objects_dir.display()));
        }
        if let Ok(config) = fs::read_to_string(objects_dir.join("..").join("config")) {
            let sha256 = config.lines().any(|line| {
                let line: String = line.chars().filter(|c| !c.is_whitespace()).collect::<String>().to_lowercase();
                line == "objectformat=sha256"
            });
            if sha256 {
                return Err("a SHA-256 repository: its objects are read through git".into());
            }
        }
        let mut incomplete = false;
        let mut object_dirs: Vec<PathBuf> = Vec::new();
        let mut seen: HashSet<PathBuf> = HashSet::new();
        let mut queue: Vec<(PathBuf, usize)> = vec![(objects_dir.to_path_buf(), 0)];
        queue.extend(extra_alternates.iter().map(|d| (d.clone(), 0)));
        let mut i = 0;
        while i < queue.len() {
            let (dir, depth) = queue[i].clone();
            i += 1;
            let key = fs::canonicalize(&dir).unwrap_or_else(|_| dir.clone());
            if !seen.insert(key) {
                continue;
            }
            if !dir.is_dir() {
                // git warns of an alternate that is not there and reads on without it.
                continue;
            }
            object_dirs.push(dir.clone());
            let Ok(list) = fs::read_to_string(dir.join("info").join("alternates")) else { continue };
            for line in list.lines() {
                if line.is_empty() || line.starts_with('#') {
                    continue;
                }
                if line.starts_with('"') || depth + 1 > MAX_ALTERNATE_DEPTH {
                    incomplete = true; // quoted (C-style) paths, or deeper than git goes: left to git
                    continue;
                }
                let path = Path::new(line);
                let path = if path.is_absolute() { path.to_path_buf() } else { dir.join(path) };
                queue.push((path, depth + 1));
            }
        }
        let map_limit = index_map_limit();
        let mut packs = Vec::new();
        for dir in &object_dirs {
            let Ok(entries) = fs::read_dir(dir.join("pack")) else { continue };
            let mut names: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
            names.sort();
            for path in names {
                if path.extension().and_then(|e| e.to_str()) != Some("pack") {
                    continue;
                }
                let index = path.with_extension("idx");
                if !index.exists() {
                    continue; // git ignores a pack without its index too
                }
                match Pack::open(&index, &path, map_limit) {
                    Ok(pack) => packs.push(pack),
                    Err(_) => incomplete = true,
                }
            }
        }
        Ok(Odb { packs, object_dirs, incomplete, cache: Mutex::new(BaseCache::new(CACHE_BUDGET)) })
    }

    /** The packs, in the order they are searched. */
    pub fn packs(&self) -> &[Pack] {
        &self.packs
    }

    /** The first pack holding `id` (as searched by `read`) and the id's place in that pack's index. */
    pub fn packed_place(&self, id: &[u8; 20]) -> Result<Option<(usize, usize)>, String> {
        for (p, pack) in self.packs.iter().enumerate() {
            if let Some(k) = pack.position(id)? {
                return Ok(Some((p, k)));
            }
        }
        Ok(None)
    }

    /**
     * The base of the entry at `at` in pack `p` when it is a delta naming its base by id (REF_DELTA):
     * its header alone is read (a scan's first read of an entry takes much of its data too).
     */
    pub fn ref_delta_base(&self, p: usize, at: u64) -> Result<Option<[u8; 20]>, String> {
        let pack = &self.packs[p];
        if at < 12 || at >= pack.data_size {
            return Err("entry outside the pack".into());
        }
        let mut head = [0u8; HEADER_MAX];
        let n = (pack.data_size - at).min(HEADER_MAX as u64) as usize;
        pack.data.read_exact_at(&mut head[..n], at).map_err(|e| format!("read failed: {e}"))?;
        let entry = parse_entry_header(&head[..n], at)?;
        Ok((entry.kind == REF_DELTA).then_some(entry.base_id))
    }

    fn locate(&self, id: &[u8; 20]) -> Result<Option<Location>, String> {
        if let Some((p, k)) = self.packed_place(id)? {
            return Ok(Some(Location::Packed(p, self.packs[p].offset_of(k)?)));
        }
        let name = hex(id);
        for dir in &self.object_dirs {
            let path = dir.join(&name[..2]).join(&name[2..]);
            if path.is_file() {
                return Ok(Some(Location::Loose(path)));
            }
        }
        Ok(None)
    }

    /**
     * Reads one object into `out` (at most `max_size` bytes, and no more than `out` holds),
     * rebuilding it from its delta chain when packed as a delta.
     */
    pub fn read(&self, id: &[u8; 20], max_size: u64, out: &mut [u8], scratch: &mut Scratch) -> Answer {
        let location = match self.locate(id) {
            Ok(Some(location)) => location,
            Ok(None) if self.incomplete => return Answer::LeaveToGit(0, 0),
            Ok(None) => return Answer::Missing,
            Err(_) => return Answer::LeaveToGit(0, 0),
        };
        let read = match location {
            Location::Packed(p, offset) => self.read_packed(p, offset, max_size, out, scratch),
            Location::Loose(path) => read_loose(&path, max_size, out, &mut scratch.z),
        };
        match read {
            Ok(answer) => answer,
            Err(_) => Answer::LeaveToGit(0, 0),
        }
    }

    /** `read`, of an object at the place in a pack `packed_place` gave (no second lookup). */
    pub fn read_placed(&self, (p, k): (usize, usize), max_size: u64, out: &mut [u8], scratch: &mut Scratch) -> Answer {
        let read = self.packs[p].offset_of(k).and_then(|offset| self.read_packed(p, offset, max_size, out, scratch));
        read.unwrap_or(Answer::LeaveToGit(0, 0))
    }

    fn read_packed(&self, pack: usize, offset: u64, max_size: u64, out: &mut [u8], scratch: &mut Scratch) -> Result<Answer, String> {
        // Walk down the chain to a base we have (cached, whole in the pack, or loose)...
        let mut chain: Vec<(usize, u64, EntryHeader)> = Vec::new(); // (pack, where, its header)
        let (kind, mut base): (u8, Arc<Vec<u8>>);
        let (mut p, mut at) = (pack, offset);
        loop {
            if chain.len() > MAX_CHAIN {
                return Err("delta chain too long".into());
            }
            if let Some((k, data)) = self.cache_get(p, at) {
                if chain.is_empty() {
                    return Ok(copy_out(k, &data, max_size, out));
                }
                (kind, base) = (k, data);
                break;
            }
            let entry = read_entry_header(&self.packs[p], p, at, scratch)?;
            match entry.kind {
                COMMIT | TREE | BLOB | TAG => {
                    if chain.is_empty() {
                        // Asked for directly: inflated where it is wanted (git keeps it no more than we).
                        if let Some(refused) = refuse(entry.kind, entry.size, max_size, out.len()) {
                            return Ok(refused);
                        }
                        let size = entry.size as usize;
                        inflate_into(&self.packs[p], p, entry.data_at, scratch, &mut out[..size])?;
                        return Ok(Answer::Found(entry.kind, size));
                    }
                    if entry.size > MAX_BASE_SIZE {
                        return Err("delta base too large".into());
                    }
                    let data = inflate_entry(&self.packs[p], p, &entry, scratch)?;
                    kind = entry.kind;
                    base = Arc::new(data);
                    self.cache_put(p, at, kind, base.clone());
                    break;
                }
                OFS_DELTA => {
                    let base_at = entry.base_offset;
                    chain.push((p, at, entry));
                    at = base_at;
                }
                REF_DELTA => {
                    let base_id = entry.base_id;
                    chain.push((p, at, entry));
                    match self.locate(&base_id)? {
                        Some(Location::Packed(bp, boff)) => (p, at) = (bp, boff),
                        Some(Location::Loose(path)) => {
                            (kind, base) = read_loose_whole(&path, &mut scratch.z)?;
                            break;
                        }
                        None => return Err("delta base missing".into()),
                    }
                }
                _ => return Err("unknown pack entry type".into()),
            }
        }
        // ...then back up it, applying each delta to what the one below made; the last into `out`.
        while let Some((dp, dat, entry)) = chain.pop() {
            if entry.size > MAX_BASE_SIZE * 2 {
                return Err("delta too large".into());
            }
            let mut deltas = std::mem::take(&mut scratch.delta);
            let delta = inflate_entry_into(&self.packs[dp], dp, &entry, scratch, &mut deltas)?;
            let size = delta::result_size(delta)?;
            if chain.is_empty() {
                if let Some(refused) = refuse(kind, size, max_size, out.len()) {
                    return Ok(refused);
                }
                delta::apply_into(&base, delta, &mut out[..size as usize])?;
                scratch.keep_delta_buffer(deltas);
                return Ok(Answer::Found(kind, size as usize));
            }
            if size > MAX_BASE_SIZE {
                return Err("delta result too large".into());
            }
            let made = Arc::new(delta::apply_to_vec(&base, delta)?);
            scratch.keep_delta_buffer(deltas);
            self.cache_put(dp, dat, kind, made.clone());
            base = made;
        }
        unreachable!("the chain ends in a delta applied into `out`")
    }

    fn cache_get(&self, pack: usize, at: u64) -> Option<(u8, Arc<Vec<u8>>)> {
        let mut cache = self.cache.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        cache.get(pack, at)
    }

    fn cache_put(&self, pack: usize, at: u64, kind: u8, data: Arc<Vec<u8>>) {
        let mut cache = self.cache.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        cache.put(pack, at, kind, data);
    }
}

/** Why an object of `size` is not read into a room of `room` bytes, if it is not. */
fn refuse(kind: u8, size: u64, max_size: u64, room: usize) -> Option<Answer> {
    if size > max_size {
        Some(Answer::LeaveToGit(kind, size))
    } else if size > room as u64 {
        Some(Answer::NoRoom(kind, size))
    } else {
        None
    }
}

fn copy_out(kind: u8, data: &[u8], max_size: u64, out: &mut [u8]) -> Answer {
    if let Some(refused) = refuse(kind, data.len() as u64, max_size, out.len()) {
        return refused;
    }
    out[..data.len()].copy_from_slice(data);
    Answer::Found(kind, data.len())
}

struct EntryHeader {
    kind: u8,
    size: u64,
    /** Where the compressed data starts. */
    data_at: u64,
    base_offset: u64,
    base_id: [u8; 20],
}

/**
 * What one read of the scan's thread keeps from object to object: the inflate stream, and the bytes
 * read last from a pack (an entry's header and, for most objects, all of its compressed data: one
 * positioned read an object).
 */
pub struct Scratch {
    pub z: Inflater,
    /**
     * Where deltas are inflated: each is applied at once and not needed after, and the room is
     * reused (a new zeroed vector a delta was a tenth of the reading's time).
     */
    delta: Vec<u8>,
    input: Vec<u8>,
    /** `input[..input_len]` holds the pack's bytes from `input_at` (in pack `input_pack`). */
    input_len: usize,
    input_at: u64,
    input_pack: usize,
}

thread_local! {
    /** Each worker thread's Scratch between calls (Scratch::of_this_thread). */
    static SCRATCH: std::cell::RefCell<Option<Scratch>> = const { std::cell::RefCell::new(None) };
}

/** The most room for deltas a thread keeps between objects. */
const KEPT_DELTA_ROOM: usize = 1 << 20;
/** A read of this size at an entry takes the whole of most entries' compressed data. */
const FIRST_READ: usize = 8 << 10;
/** The most read from a pack at once: larger entries are inflated a piece at a time. */
const INPUT_SIZE: usize = 256 << 10;

impl Scratch {
    pub fn new() -> Result<Scratch, String> {
        Ok(Scratch {
            z: Inflater::new()?,
            delta: Vec::new(),
            input: vec![0; INPUT_SIZE],
            input_len: 0,
            input_at: 0,
            input_pack: usize::MAX,
        })
    }

    /** Takes back the room deltas are inflated into, unless a very large delta made it large. */
    fn keep_delta_buffer(&mut self, room: Vec<u8>) {
        if room.len() <= KEPT_DELTA_ROOM {
            self.delta = room;
        }
    }

    /**
     * This worker thread's scratch, made on its first call (no quarter megabyte allocated and freed
     * a call), holding nothing of the last call's (it may have read another database's packs).
     */
    pub fn of_this_thread() -> Result<Scratch, String> {
        let kept = SCRATCH.with(|cell| cell.borrow_mut().take());
        let mut scratch = match kept {
            Some(scratch) => scratch,
            None => Scratch::new()?,
        };
        scratch.input_pack = usize::MAX;
        scratch.input_len = 0;
        Ok(scratch)
    }

    /** Keeps it for this thread's next call. */
    pub fn keep_for_this_thread(self) {
        SCRATCH.with(|cell| *cell.borrow_mut() = Some(self));
    }

    /** Reads up to `want` bytes of the pack from `at` (less at its end) into `input`. */
    fn fill(&mut self, pack: &Pack, pack_number: usize, at: u64, want: usize) -> Result<(), String> {
        let end = pack.data_size.saturating_sub(20); // the pack's checksum ends the file
        if at >= end {
            return Err("read past the pack's end".into());
        }
        let want = ((end - at) as usize).min(want).min(self.input.len());
        let got = pack.data.read_at(&mut self.input[..want], at).map_err(|e| e.to_string())?;
        if got == 0 {
            return Err("pack ends early".into());
        }
        (self.input_len, self.input_at, self.input_pack) = (got, at, pack_number);
        Ok(())
    }
}

/** The most bytes an entry's header takes: a size of up to 64 bits, then a base's id or offset. */
const HEADER_MAX: usize = 32;

/** A pack entry's header: type and size, then for a delta where its base is. */
fn read_entry_header(pack: &Pack, pack_number: usize, at: u64, scratch: &mut Scratch) -> Result<EntryHeader, String> {
    if at < 12 {
        return Err("entry outside the pack".into());
    }
    // The last read often holds this entry too (a delta's base just before it, the next version
    // of a file just after the last): its bytes are used where they reach past the header.
    let window_end = scratch.input_at + scratch.input_len as u64;
    let held = scratch.input_pack == pack_number && at >= scratch.input_at && at + HEADER_MAX as u64 <= window_end;
    if !held {
        scratch.fill(pack, pack_number, at, FIRST_READ)?;
    }
    let from = (at - scratch.input_at) as usize;
    parse_entry_header(&scratch.input[from..(from + HEADER_MAX).min(scratch.input_len)], at)
}

/** The header of the entry at `at`, from `head`, the pack's bytes from there on. */
fn parse_entry_header(head: &[u8], at: u64) -> Result<EntryHeader, String> {
    let mut i = 0;
    let mut byte = *head.get(i).ok_or("entry header cut off")?;
    i += 1;
    let kind = (byte >> 4) & 7;
    let mut size = (byte & 15) as u64;
    let mut shift = 4;
    while byte & 0x80 != 0 {
        byte = *head.get(i).ok_or("entry header cut off")?;
        i += 1;
        if shift > 60 {
            return Err("entry size too long".into());
        }
        size |= ((byte & 0x7f) as u64) << shift;
        shift += 7;
    }
    let mut header = EntryHeader { kind, size, data_at: 0, base_offset: 0, base_id: [0; 20] };
    if kind == OFS_DELTA {
        byte = *head.get(i).ok_or("entry header cut off")?;
        i += 1;
        let mut back = (byte & 0x7f) as u64;
        while byte & 0x80 != 0 {
            byte = *head.get(i).ok_or("entry header cut off")?;
            i += 1;
            back = back.checked_add(1).and_then(|b| b.checked_mul(128)).ok_or("delta offset too long")? | (byte & 0x7f) as u64;
        }
        if back == 0 || back > at {
            return Err("delta base outside the pack".into());
        }
        header.base_offset = at - back;
    } else if kind == REF_DELTA {
        let id = head.get(i..i + 20).ok_or("entry header cut off")?;
        header.base_id.copy_from_slice(id);
        i += 20;
    }
    header.data_at = at + i as u64;
    Ok(header)
}

/**
 * Inflates an entry's data into `room` (grown to its size when smaller; what lies beyond is left as
 * it was): the data, `room`'s first bytes.
 */
fn inflate_entry_into<'r>(
    pack: &Pack,
    pack_number: usize,
    entry: &EntryHeader,
    scratch: &mut Scratch,
    room: &'r mut Vec<u8>,
) -> Result<&'r [u8], String> {
    let size = usize::try_from(entry.size).map_err(|_| "object too large")?;
    if room.len() < size {
        room.resize(size, 0);
    }
    inflate_into(pack, pack_number, entry.data_at, scratch, &mut room[..size])?;
    Ok(&room[..size])
}

/** Inflates an entry's data into a new vector of its size. */
fn inflate_entry(pack: &Pack, pack_number: usize, entry: &EntryHeader, scratch: &mut Scratch) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    inflate_entry_into(pack, pack_number, entry, scratch, &mut out)?;
    Ok(out)
}

/**
 * Inflates the compressed data at `at` into `out`: exactly `out.len()` bytes, or it is damage (as git
 * says of more or fewer). Starts from what the header's read brought in when it is still there.
 */
fn inflate_into(pack: &Pack, pack_number: usize, at: u64, scratch: &mut Scratch, out: &mut [u8]) -> Result<(), String> {
    let size = out.len();
    let have = scratch.input_pack == pack_number && at >= scratch.input_at && at < scratch.input_at + scratch.input_len as u64;
    let mut taken = if have { (at - scratch.input_at) as usize } else { 0 };
    if !have {
        scratch.fill(pack, pack_number, at, (size + 64).max(FIRST_READ))?;
    }
    scratch.z.reset();
    let mut written = 0;
    let mut probe = [0u8; 1];
    loop {
        let input_len = scratch.input_len;
        loop {
            let before = (taken, written);
            let step = if written < size {
                scratch.z.step(&scratch.input[..input_len], &mut taken, out, &mut written)?
            } else {
                // All the bytes the header promised are here: the stream must end now.
                let mut extra = 0;
                let step = scratch.z.step(&scratch.input[..input_len], &mut taken, &mut probe, &mut extra)?;
                if extra > 0 {
                    return Err("object longer than its header says".into());
                }
                step
            };
            if let Step::End = step {
                return if written == size { Ok(()) } else { Err("object shorter than its header says".into()) };
            }
            if taken == input_len {
                break; // more input wanted
            }
            if (taken, written) == before {
                return Err("compressed data makes no progress".into());
            }
        }
        let next = scratch.input_at + taken as u64;
        scratch.fill(pack, pack_number, next, (size - written + 64).max(FIRST_READ))?;
        taken = 0;
    }
}

/** A loose object's type and size, and the stream positioned after its header (`head[..have]` holds
 * the content inflated with it). */
struct LooseHead {
    compressed: Vec<u8>,
    taken: usize,
    kind: u8,
    size: u64,
    head: [u8; 64],
    content_from: usize,
    written: usize,
    ended: bool,
}

/** A loose object: one zlib stream of `<type> <size>\0<content>`. */
fn open_loose(path: &Path, z: &mut Inflater) -> Result<LooseHead, String> {
    let compressed = fs::read(path).map_err(|e| e.to_string())?;
    z.reset();
    let mut head = [0u8; 64];
    let (mut taken, mut written) = (0, 0);
    let ended = loop {
        let before = (taken, written);
        let step = z.step(&compressed, &mut taken, &mut head, &mut written)?;
        if let Step::End = step {
            break true;
        }
        if head[..written].contains(&0) || written == head.len() || (taken, written) == before {
            break false;
        }
    };
    let nul = head[..written].iter().position(|&b| b == 0).ok_or("loose object header damaged")?;
    let header = &head[..nul];
    let space = header.iter().position(|&b| b == b' ').ok_or("loose object header damaged")?;
    let kind = parse_type(&header[..space]).ok_or("loose object of unknown type")?;
    let size: u64 = std::str::from_utf8(&header[space + 1..])
        .ok()
        .filter(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) && (s.len() == 1 || !s.starts_with('0')))
        .and_then(|s| s.parse().ok())
        .ok_or("loose object header damaged")?;
    Ok(LooseHead { compressed, taken, kind, size, head, content_from: nul + 1, written, ended })
}

/** The rest of a loose object's content into `out` (its exact size). */
fn finish_loose(mut loose: LooseHead, z: &mut Inflater, out: &mut [u8]) -> Result<(), String> {
    let already = loose.written - loose.content_from;
    if already > out.len() {
        return Err("loose object longer than its header says".into());
    }
    out[..already].copy_from_slice(&loose.head[loose.content_from..loose.written]);
    let mut done = already;
    let mut ended = loose.ended;
    let mut probe = [0u8; 1];
    while !ended {
        let before = (loose.taken, done);
        let step = if done < out.len() {
            z.step(&loose.compressed, &mut loose.taken, out, &mut done)?
        } else {
            let mut extra = 0;
            let step = z.step(&loose.compressed, &mut loose.taken, &mut probe, &mut extra)?;
            if extra > 0 {
                return Err("loose object longer than its header says".into());
            }
            step
        };
        match step {
            Step::End => ended = true,
            Step::More if (loose.taken, done) == before => return Err("loose object cut off".into()),
            Step::More => {}
        }
    }
    if done != out.len() {
        return Err("loose object's size differs from its header".into());
    }
    Ok(())
}

fn read_loose(path: &Path, max_size: u64, out: &mut [u8], z: &mut Inflater) -> Result<Answer, String> {
    let loose = open_loose(path, z)?;
    let (kind, size) = (loose.kind, loose.size);
    if let Some(refused) = refuse(kind, size, max_size, out.len()) {
        return Ok(refused);
    }
    finish_loose(loose, z, &mut out[..size as usize])?;
    Ok(Answer::Found(kind, size as usize))
}

/** A loose object whole, as the base of a delta. */
fn read_loose_whole(path: &Path, z: &mut Inflater) -> Result<(u8, Arc<Vec<u8>>), String> {
    let loose = open_loose(path, z)?;
    if loose.size > MAX_BASE_SIZE {
        return Err("delta base too large".into());
    }
    let (kind, mut data) = (loose.kind, vec![0u8; loose.size as usize]);
    finish_loose(loose, z, &mut data)?;
    Ok((kind, Arc::new(data)))
}

/** Rebuilt objects by where they are in which pack, the least recently used dropped first. */
struct BaseCache {
    entries: HashMap<(usize, u64), (u8, Arc<Vec<u8>>, u64)>,
    bytes: usize,
    budget: usize,
    clock: u64,
}

impl BaseCache {
    fn new(budget: usize) -> BaseCache {
        BaseCache { entries: HashMap::new(), bytes: 0, budget, clock: 0 }
    }

    fn get(&mut self, pack: usize, at: u64) -> Option<(u8, Arc<Vec<u8>>)> {
        self.clock += 1;
        let clock = self.clock;
        self.entries.get_mut(&(pack, at)).map(|entry| {
            entry.2 = clock;
            (entry.0, entry.1.clone())
        })
    }

    fn put(&mut self, pack: usize, at: u64, kind: u8, data: Arc<Vec<u8>>) {
        if data.len() > self.budget / 4 {
            return;
        }
        self.clock += 1;
        let len = data.len();
        if let Some(old) = self.entries.insert((pack, at), (kind, data, self.clock)) {
            self.bytes -= old.1.len();
        }
        self.bytes += len;
        if self.bytes > self.budget {
            // Down to three quarters at once, so that eviction's sort is paid rarely.
            let mut by_age: Vec<((usize, u64), u64, usize)> =
                self.entries.iter().map(|(k, v)| (*k, v.2, v.1.len())).collect();
            by_age.sort_unstable_by_key(|e| e.1);
            for (key, _, len) in by_age {
                if self.bytes <= self.budget * 3 / 4 {
                    break;
                }
                self.entries.remove(&key);
                self.bytes -= len;
            }
        }
    }
}
