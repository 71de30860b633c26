//! One pack and its version-2 index, read with positioned reads (never mapped: the index's pages
//! stay in the page cache, not in this process's resident memory, however large the history).

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/** Ids are sampled every this many: the sample narrows a lookup to one small read of the index. */
const SAMPLE_EVERY: usize = 16;

pub struct Pack {
    pub data: File,
    pub data_size: u64,
    /** The pack file's path and its index's, as found. */
    pub data_path: PathBuf,
    pub index_path: PathBuf,
    index: File,
    index_size: u64,
    count: usize,
    ids_at: u64,
    offsets_at: u64,
    large_offsets_at: u64,
    /** The first eight bytes of every SAMPLE_EVERY-th id, big-endian: sorted like the ids. */
    sample: Vec<u64>,
}

fn read_exact_at(file: &File, buf: &mut [u8], at: u64) -> Result<(), String> {
    file.read_exact_at(buf, at).map_err(|e| format!("read failed: {e}"))
}

fn be32(b: &[u8]) -> u32 {
    u32::from_be_bytes([b[0], b[1], b[2], b[3]])
}

impl Pack {
    /** Opens `<name>.idx` and `<name>.pack`; the index is checked for shape, not for content. */
    pub fn open(index_path: &Path, pack_path: &Path) -> Result<Pack, String> {
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
        let mut sample = Vec::with_capacity(count / SAMPLE_EVERY + 1);
        // The id table read in pieces of a megabyte: a sequential pass, once.
        let chunk_ids = (1 << 20) / 20 / SAMPLE_EVERY * SAMPLE_EVERY;
        let mut buf = vec![0u8; chunk_ids * 20];
        let mut first = 0;
        while first < count {
            let n = chunk_ids.min(count - first);
            read_exact_at(&index, &mut buf[..n * 20], ids_at + first as u64 * 20)?;
            let mut i = 0;
            while i < n {
                let id = &buf[i * 20..i * 20 + 8];
                sample.push(u64::from_be_bytes(id.try_into().unwrap()));
                i += SAMPLE_EVERY;
            }
            first += n;
        }
        Ok(Pack {
            data,
            data_size,
            data_path: pack_path.to_path_buf(),
            index_path: index_path.to_path_buf(),
            index,
            index_size,
            count,
            ids_at,
            offsets_at,
            large_offsets_at,
            sample,
        })
    }

    /** How many objects the pack holds (its index says; git checks the pack's header says the same). */
    pub fn count(&self) -> usize {
        self.count
    }

    /** Where `id` is in the index (its place among the sorted ids), if the pack holds it. */
    pub fn position(&self, id: &[u8; 20]) -> Result<Option<usize>, String> {
        if self.count == 0 {
            return Ok(None);
        }
        let key = u64::from_be_bytes(id[0..8].try_into().unwrap());
        // Ids before sample i's are below it; those from sample j's on are at or above it. So the
        // id, if here, lies after the last sample below the key and before the first above it.
        let below = self.sample.partition_point(|&s| s < key); // samples [0, below) are < key
        let not_above = self.sample.partition_point(|&s| s <= key); // samples [not_above, ..) are > key
        let lo = if below == 0 { 0 } else { (below - 1) * SAMPLE_EVERY + 1 };
        let hi = (not_above * SAMPLE_EVERY).min(self.count);
        if lo >= hi {
            return Ok(None);
        }
        self.search(id, lo, hi)
    }

    /** Finds `id` among the ids at [lo, hi), reading them (in one read when few). */
    fn search(&self, id: &[u8; 20], mut lo: usize, mut hi: usize) -> Result<Option<usize>, String> {
        let mut one = [0u8; 20];
        // Only many ids sharing their first eight bytes make the window wide: halve it first.
        while hi - lo > 64 {
            let mid = lo + (hi - lo) / 2;
            read_exact_at(&self.index, &mut one, self.ids_at + mid as u64 * 20)?;
            match one.as_slice().cmp(id.as_slice()) {
                std::cmp::Ordering::Equal => return Ok(Some(mid)),
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
            }
        }
        let mut window = [0u8; 64 * 20];
        let bytes = &mut window[..(hi - lo) * 20];
        read_exact_at(&self.index, bytes, self.ids_at + lo as u64 * 20)?;
        let found = bytes.chunks_exact(20).position(|candidate| candidate == id.as_slice());
        Ok(found.map(|i| lo + i))
    }

    /** The CRC-32 the index keeps of the `k`-th object's bytes in the pack. */
    pub fn crc_of(&self, k: usize) -> Result<u32, String> {
        let mut four = [0u8; 4];
        read_exact_at(&self.index, &mut four, self.ids_at + self.count as u64 * 20 + k as u64 * 4)?;
        Ok(be32(&four))
    }

    /** The pack's own checksum, as its index repeats it (git checks the two are the same). */
    pub fn checksum(&self) -> Result<[u8; 20], String> {
        let mut sum = [0u8; 20];
        read_exact_at(&self.index, &mut sum, self.index_size - 40)?;
        Ok(sum)
    }

    /** Where the `k`-th object starts in the pack. */
    pub fn offset_of(&self, k: usize) -> Result<u64, String> {
        let mut four = [0u8; 4];
        read_exact_at(&self.index, &mut four, self.offsets_at + k as u64 * 4)?;
        let value = be32(&four);
        if value & 0x8000_0000 == 0 {
            return Ok(value as u64);
        }
        let mut eight = [0u8; 8];
        read_exact_at(&self.index, &mut eight, self.large_offsets_at + (value & 0x7fff_ffff) as u64 * 8)?;
        Ok(u64::from_be_bytes(eight))
    }
}
