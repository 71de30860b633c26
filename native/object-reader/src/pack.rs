//! One pack and its version-2 index. An index up to INDEX_MAP_LIMIT is mapped, as git maps it, once
//! in the process however many databases are open on it: a lookup is then a few memory reads, where
//! positioned reads cost two system calls (two thirds of a scan's system calls; rails 31 s to 27-28.5
//! s). A larger one is read with positioned reads: its pages stay in the page cache, not in this
//! process's resident memory, however large the history.

use std::ffi::c_void;
use std::fs::File;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};

/**
 * Ids are bucketed by their first bits, about this many ids a bucket: a lookup reads where its
 * bucket starts and ends (one cache line), then compares the bucket's ids in the index. It replaced a
 * sample of every 16th id's first eight bytes searched in two levels (the same half a byte an object):
 * on 200,000 synthetic commits that binary search's cache misses were three fifths of the lookup's
 * own time and the copy of 16 to 32 ids out of the index most of the rest (together about 7% of the
 * scan's processor time, for 1.5 million lookups).
 */
const IDS_PER_BUCKET: usize = 8;
/** A bucket of more ids than this (ids made to share their first bits) is halved in the index first. */
const MAX_SCANNED: usize = 64;
/**
 * The largest index mapped (about 1.7 million objects): at most this much more resident memory,
 * whatever the history's size. rails' index is 35 MB, git/git's 24 MB, eslint's 6 MB; a million
 * synthetic commits' 157 MB is read with positioned reads.
 */
pub const INDEX_MAP_LIMIT: u64 = 48 << 20;

extern "C" {
    fn mmap(addr: *mut c_void, len: usize, prot: i32, flags: i32, fd: i32, offset: i64) -> *mut c_void;
    fn munmap(addr: *mut c_void, len: usize) -> i32;
}
const PROT_READ: i32 = 1;
const MAP_PRIVATE: i32 = 2;
const MAP_FAILED: *mut c_void = !0usize as *mut c_void;

/** A file mapped read-only, unmapped when dropped. */
struct Mapping {
    at: *const u8,
    len: usize,
}

// The mapping is read-only and lives as long as the last Pack holding it: any thread may read it.
unsafe impl Send for Mapping {}
unsafe impl Sync for Mapping {}

impl Mapping {
    /** Maps `len` bytes of `file` (len > 0), or None when the system refuses. */
    fn of(file: &File, len: u64) -> Option<Mapping> {
        let len = usize::try_from(len).ok()?;
        let at = unsafe { mmap(std::ptr::null_mut(), len, PROT_READ, MAP_PRIVATE, file.as_raw_fd(), 0) };
        if at == MAP_FAILED {
            return None;
        }
        Some(Mapping { at: at as *const u8, len })
    }

    fn bytes(&self) -> &[u8] {
        unsafe { std::slice::from_raw_parts(self.at, self.len) }
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        unsafe { munmap(self.at as *mut c_void, self.len) };
    }
}

/** Which file a mapping is of: the same file, unchanged, is the same bytes (git never rewrites a pack's index). */
#[derive(PartialEq)]
struct FileKey {
    dev: u64,
    ino: u64,
    size: u64,
    mtime: (i64, i64),
}

/**
 * The indexes mapped, by file. A scan has several databases open at once (the listing's, the blobs'):
 * each index is mapped once among them, so that its pages count once in the resident memory (two
 * mappings of a page count twice).
 */
static MAPPINGS: Mutex<Vec<(FileKey, Weak<Mapping>)>> = Mutex::new(Vec::new());

/** `file`'s first `len` bytes mapped, shared with any database that has the same file mapped. */
fn shared_mapping(file: &File, len: u64) -> Option<Arc<Mapping>> {
    let meta = file.metadata().ok()?;
    let key = FileKey { dev: meta.dev(), ino: meta.ino(), size: len, mtime: (meta.mtime(), meta.mtime_nsec()) };
    let mut mappings = MAPPINGS.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    mappings.retain(|(_, mapping)| mapping.strong_count() > 0);
    if let Some(mapping) = mappings.iter().find(|(k, _)| *k == key).and_then(|(_, m)| m.upgrade()) {
        return Some(mapping);
    }
    let mapping = Arc::new(Mapping::of(file, len)?);
    mappings.push((key, Arc::downgrade(&mapping)));
    Some(mapping)
}

pub struct Pack {
    pub data: File,
    pub data_size: u64,
    /** The pack file's path and its index's, as found. */
    pub data_path: PathBuf,
    pub index_path: PathBuf,
    index: File,
    index_size: u64,
    /** The index's bytes, when it is small enough to map (INDEX_MAP_LIMIT). */
    index_map: Option<Arc<Mapping>>,
    count: usize,
    ids_at: u64,
    offsets_at: u64,
    large_offsets_at: u64,
    /**
     * Where each bucket's ids start in the index, and `count` after the last: bucket `b` holds the
     * ids whose first `bucket_bits` bits are `b`, from `bucket_start[b]` to `bucket_start[b + 1]`.
     */
    bucket_start: Vec<u32>,
    bucket_bits: u32,
}

fn read_exact_at(file: &File, buf: &mut [u8], at: u64) -> Result<(), String> {
    file.read_exact_at(buf, at).map_err(|e| format!("read failed: {e}"))
}

/** Bytes of an index from `at`: from its mapping when it has one, else by a positioned read. */
fn read_index_at(index: &File, map: Option<&Mapping>, buf: &mut [u8], at: u64) -> Result<(), String> {
    let Some(map) = map else { return read_exact_at(index, buf, at) };
    let from = usize::try_from(at).map_err(|_| "read past the index's end")?;
    let bytes = map.bytes().get(from..from + buf.len()).ok_or("read past the index's end")?;
    buf.copy_from_slice(bytes);
    Ok(())
}

/**
 * How many first bits of an id pick its bucket: about IDS_PER_BUCKET ids a bucket (ids are hashes,
 * spread evenly), at least one bit, and at most 2^26 buckets (a quarter gigabyte of starts would
 * index a billion objects).
 */
fn bucket_bits_for(count: usize) -> u32 {
    let buckets = (count / IDS_PER_BUCKET).max(2);
    (usize::BITS - 1 - buckets.leading_zeros()).clamp(1, 26)
}

/** The bucket of `id`: its first `bits` bits. */
#[inline]
fn bucket_of(id: &[u8; 20], bits: u32) -> usize {
    (u32::from_be_bytes([id[0], id[1], id[2], id[3]]) >> (32 - bits)) as usize
}

fn be32(b: &[u8]) -> u32 {
    u32::from_be_bytes([b[0], b[1], b[2], b[3]])
}

impl Pack {
    /**
     * Opens `<name>.idx` and `<name>.pack`; the index is checked for shape and for its ids' order
     * (not for the rest of its content), and mapped when it is at most `map_limit` bytes.
     */
    pub fn open(index_path: &Path, pack_path: &Path, map_limit: u64) -> Result<Pack, String> {
        let index = File::open(index_path).map_err(|e| format!("{}: {e}", index_path.display()))?;
        let data = File::open(pack_path).map_err(|e| format!("{}: {e}", pack_path.display()))?;
        let index_size = index.metadata().map_err(|e| e.to_string())?.len();
        let data_size = data.metadata().map_err(|e| e.to_string())?.len();
        let mut head = [0u8; 8 + 256 * 4];
        if index_size < head.len() as u64 {
            return Err(format!("{}: too short for a pack index", index_path.display()));
        }
        read_exact_at(&index, &mut head, 0)?;
        if head[0..4] != [0xff, b't', b'O', b'c'] || be32(&head[4..8]) != 2 {
            return Err(format!("{}: not a version-2 pack index", index_path.display()));
        }
        let count = be32(&head[8 + 255 * 4..]) as usize;
        let ids_at = 8 + 256 * 4;
        let offsets_at = ids_at + count as u64 * 24; // ids, then their CRCs
        let large_offsets_at = offsets_at + count as u64 * 4;
        // Two checksums end the file; between them and the offsets, the large offsets (8 bytes each).
        let rest = index_size.checked_sub(large_offsets_at + 40).ok_or_else(|| {
            format!("{}: shorter than its {count} objects need (a SHA-256 index?)", index_path.display())
        })?;
        if rest % 8 != 0 || rest / 8 > count as u64 {
            return Err(format!("{}: its size does not fit 20-byte ids (a SHA-256 index?)", index_path.display()));
        }
        let index_map = if index_size <= map_limit { shared_mapping(&index, index_size) } else { None };
        // The id table read in pieces of a megabyte: a sequential pass, once. Its ids must be sorted
        // (git's are; a lookup relies on it): an index whose are not is not read here.
        let bucket_bits = bucket_bits_for(count);
        let mut bucket_start = vec![0u32; (1usize << bucket_bits) + 1];
        let chunk_ids = (1 << 20) / 20;
        let mut buf = vec![0u8; chunk_ids * 20];
        let (mut first, mut next_bucket, mut last) = (0, 0usize, [0u8; 20]);
        while first < count {
            let n = chunk_ids.min(count - first);
            read_index_at(&index, index_map.as_deref(), &mut buf[..n * 20], ids_at + first as u64 * 20)?;
            for (i, id) in buf[..n * 20].chunks_exact(20).enumerate() {
                if first + i > 0 && id <= &last[..] {
                    return Err(format!("{}: its ids are not sorted", index_path.display()));
                }
                last.copy_from_slice(id);
                let bucket = bucket_of(id.try_into().unwrap(), bucket_bits);
                while next_bucket <= bucket {
                    bucket_start[next_bucket] = (first + i) as u32;
                    next_bucket += 1;
                }
            }
            first += n;
        }
        for start in &mut bucket_start[next_bucket..] {
            *start = count as u32;
        }
        Ok(Pack {
            data,
            data_size,
            data_path: pack_path.to_path_buf(),
            index_path: index_path.to_path_buf(),
            index,
            index_size,
            index_map,
            count,
            ids_at,
            offsets_at,
            large_offsets_at,
            bucket_start,
            bucket_bits,
        })
    }

    fn read_index(&self, buf: &mut [u8], at: u64) -> Result<(), String> {
        read_index_at(&self.index, self.index_map.as_deref(), buf, at)
    }

    /** How many objects the pack holds (its index says; git checks the pack's header says the same). */
    pub fn count(&self) -> usize {
        self.count
    }

    /** Where `id` is in the index (its place among the sorted ids), if the pack holds it. */
    pub fn position(&self, id: &[u8; 20]) -> Result<Option<usize>, String> {
        let bucket = bucket_of(id, self.bucket_bits);
        let lo = self.bucket_start[bucket] as usize;
        let hi = self.bucket_start[bucket + 1] as usize;
        if lo >= hi {
            return Ok(None);
        }
        self.search(id, lo, hi)
    }

    /** Finds `id` among the ids at [lo, hi): compared where the index is mapped, else read (in one read when few). */
    fn search(&self, id: &[u8; 20], mut lo: usize, mut hi: usize) -> Result<Option<usize>, String> {
        let mut one = [0u8; 20];
        // Only many ids sharing their first bits make the window wide: halve it first.
        while hi - lo > MAX_SCANNED {
            let mid = lo + (hi - lo) / 2;
            self.read_index(&mut one, self.ids_at + mid as u64 * 20)?;
            match one.as_slice().cmp(id.as_slice()) {
                std::cmp::Ordering::Equal => return Ok(Some(mid)),
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
            }
        }
        let (at, len) = (self.ids_at + lo as u64 * 20, (hi - lo) * 20);
        let mut window = [0u8; MAX_SCANNED * 20];
        let bytes: &[u8] = match self.index_map.as_deref() {
            // In place: a copy out of the mapping was most of a lookup's cost (see IDS_PER_BUCKET).
            Some(map) => {
                let from = usize::try_from(at).map_err(|_| "read past the index's end")?;
                map.bytes().get(from..from + len).ok_or("read past the index's end")?
            }
            None => {
                self.read_index(&mut window[..len], at)?;
                &window[..len]
            }
        };
        let found = bytes.chunks_exact(20).position(|candidate| candidate == id.as_slice());
        Ok(found.map(|i| lo + i))
    }

    /** The CRC-32 the index keeps of the `k`-th object's bytes in the pack. */
    pub fn crc_of(&self, k: usize) -> Result<u32, String> {
        let mut four = [0u8; 4];
        self.read_index(&mut four, self.ids_at + self.count as u64 * 20 + k as u64 * 4)?;
        Ok(be32(&four))
    }

    /** The pack's own checksum, as its index repeats it (git checks the two are the same). */
    pub fn checksum(&self) -> Result<[u8; 20], String> {
        let mut sum = [0u8; 20];
        self.read_index(&mut sum, self.index_size - 40)?;
        Ok(sum)
    }

    /** Where the `k`-th object starts in the pack. */
    pub fn offset_of(&self, k: usize) -> Result<u64, String> {
        let mut four = [0u8; 4];
        self.read_index(&mut four, self.offsets_at + k as u64 * 4)?;
        let value = be32(&four);
        if value & 0x8000_0000 == 0 {
            return Ok(value as u64);
        }
        let mut eight = [0u8; 8];
        self.read_index(&mut eight, self.large_offsets_at + (value & 0x7fff_ffff) as u64 * 8)?;
        Ok(u64::from_be_bytes(eight))
    }
}
