//! svc's in-process git object reader, a Node-API module (src/scanner/sources/native-module.ts
//! loads it; native-blob-stream.ts reads blobs through it). Reading here instead of through `git cat-file --batch`
//! spares the scan the transfer of every blob between two processes, and git's mapping of each
//! pack index, which at millions of objects is hundreds of megabytes of resident memory.
//!
//! JavaScript interface (native-module.ts holds its types):
//!   open(objectsDir, alternates) -> database          throws an Error saying why it cannot
//!   read(database, ids, maxObjectSize, out, done)     done(error, used) on the main thread
//!   listChanges(database, commitIds, out, done)      done(error, used) on the main thread
//!   listParentChanges(database, commitIds, paths, out, done)   the same, each parent apart
//!   walkCommits(database, tips, withParents, fd, out, done)     commit_walk.rs
//!   writeDiffIndex(database, commitIds, directory, out, done)   diff_index.rs
//!   close(database)
//!   releaseFreeMemory()                               glibc's free memory back to the system
//! `ids` are 20-byte binary ids, concatenated. The answers are written into the Buffer `out`, one an
//! id, in order: a status byte (0 found, 1 not in the database, 2 left to git), a type byte (1
//! commit, 2 tree, 3 blob, 4 tag, 0 unknown), the size (u32, little-endian, 0 unknown), then the
//! content when found. They stop early when `out` is full: `used` bytes hold the answers to the first
//! ids, and the rest are to be asked again. An object too large for `out` even alone is left to git.
//! listChanges lists commits' tree changes as `git log --raw -c` does (listing.rs describes its records).

mod buffer_call;
mod commit_facts;
mod commit_walk;
mod delta;
mod diff_index;
mod listing;
mod napi;
mod odb;
mod pack;
mod tree;
mod tree_reader;
mod worker_pool;
mod zlib;

use napi::*;
use odb::{Answer, Odb, Scratch};
use std::ffi::CString;
use std::os::raw::{c_char, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::ptr::null_mut;
use std::sync::{Arc, Mutex};

const FOUND: u8 = 0;
const NOT_FOUND: u8 = 1;
/** A status byte of both calls' answers (read's objects, listChanges' commits): git is to answer it. */
pub(crate) const LEFT_TO_GIT: u8 = 2;

extern "C" {
    /** glibc's: frees the unused memory of every arena (the main heap's holes too). */
    fn malloc_trim(pad: usize) -> i32;
    /** glibc's: sets one of the allocator's parameters (M_MMAP_THRESHOLD, M_ARENA_MAX, M_TRIM_THRESHOLD). */
    fn mallopt(param: i32, value: i32) -> i32;
    /** libc's: a system setting (the page size). */
    fn sysconf(name: i32) -> i64;
}

/** What a JavaScript `database` value holds: the database until it is closed. */
struct Handle {
    odb: Mutex<Option<Arc<Odb>>>,
    /** Parsed trees and commit headers kept between listings, until it is closed. */
    trees: Mutex<Option<Arc<tree::TreeCache>>>,
}

fn throw(env: napi_env, message: &str) -> napi_value {
    let text = CString::new(message.replace('\0', " ")).unwrap_or_default();
    unsafe { napi_throw_error(env, std::ptr::null(), text.as_ptr()) };
    null_mut()
}

fn undefined(env: napi_env) -> napi_value {
    let mut value = null_mut();
    unsafe { napi_get_undefined(env, &mut value) };
    value
}

fn args<const N: usize>(env: napi_env, info: napi_callback_info) -> [napi_value; N] {
    let mut argv = [null_mut(); N];
    let mut argc = N;
    unsafe { napi_get_cb_info(env, info, &mut argc, argv.as_mut_ptr(), null_mut(), null_mut()) };
    argv
}

fn string_of(env: napi_env, value: napi_value) -> Option<String> {
    let mut length = 0;
    if unsafe { napi_get_value_string_utf8(env, value, std::ptr::null_mut(), 0, &mut length) } != NAPI_OK {
        return None;
    }
    let mut bytes = vec![0u8; length + 1];
    let mut written = 0;
    let status = unsafe { napi_get_value_string_utf8(env, value, bytes.as_mut_ptr() as *mut c_char, length + 1, &mut written) };
    if status != NAPI_OK {
        return None;
    }
    bytes.truncate(written);
    String::from_utf8(bytes).ok()
}

fn handle_of<'a>(env: napi_env, value: napi_value) -> Option<&'a Handle> {
    let mut kind = 0;
    if unsafe { napi_typeof(env, value, &mut kind) } != NAPI_OK || kind != NAPI_EXTERNAL {
        return None;
    }
    let mut data = null_mut();
    if unsafe { napi_get_value_external(env, value, &mut data) } != NAPI_OK || data.is_null() {
        return None;
    }
    Some(unsafe { &*(data as *const Handle) })
}

extern "C" fn free_handle(_env: napi_env, data: *mut c_void, _hint: *mut c_void) {
    drop(unsafe { Box::from_raw(data as *mut Handle) });
}

extern "C" fn open(env: napi_env, info: napi_callback_info) -> napi_value {
    let [dir, list] = args::<2>(env, info);
    let Some(dir) = string_of(env, dir) else { return throw(env, "open: objectsDir must be a string") };
    let mut alternates = Vec::new();
    let mut count = 0;
    if unsafe { napi_get_array_length(env, list, &mut count) } != NAPI_OK {
        return throw(env, "open: alternates must be an array of strings");
    }
    for i in 0..count {
        let mut item = null_mut();
        unsafe { napi_get_element(env, list, i, &mut item) };
        let Some(path) = string_of(env, item) else { return throw(env, "open: alternates must be an array of strings") };
        alternates.push(PathBuf::from(path));
    }
    let opened = catch_unwind(|| Odb::open(&PathBuf::from(&dir), &alternates));
    let odb = match opened {
        Ok(Ok(odb)) => odb,
        Ok(Err(message)) => return throw(env, &message),
        Err(_) => return throw(env, "open: the object reader failed"),
    };
    let handle = Box::into_raw(Box::new(Handle { odb: Mutex::new(Some(Arc::new(odb))), trees: Mutex::new(Some(Arc::new(tree::TreeCache::new()))) }));
    let mut value = null_mut();
    if unsafe { napi_create_external(env, handle as *mut c_void, free_handle, null_mut(), &mut value) } != NAPI_OK {
        drop(unsafe { Box::from_raw(handle) });
        return throw(env, "open: could not make the database value");
    }
    value
}

extern "C" fn close(env: napi_env, info: napi_callback_info) -> napi_value {
    let [db] = args::<1>(env, info);
    let Some(handle) = handle_of(env, db) else { return throw(env, "close: not a database") };
    // Reads under way keep their own reference; the files close when the last one ends.
    handle.odb.lock().unwrap_or_else(|p| p.into_inner()).take();
    handle.trees.lock().unwrap_or_else(|p| p.into_inner()).take();
    // What the caches and buffers held goes back to the system now, not when glibc's arenas next
    // happen to shrink: the scan goes on for a while after its reading (the diff pass).
    unsafe { malloc_trim(0) };
    undefined(env)
}

/** Gives glibc's free memory back to the system (the caller has just let go of a phase's memory). */
extern "C" fn release_free_memory(env: napi_env, _info: napi_callback_info) -> napi_value {
    unsafe { malloc_trim(0) };
    undefined(env)
}

/** sysconf's name for the page size (unistd.h). */
const SC_PAGESIZE: i32 = 30;

/** glibc's mallopt parameters (malloc.h). */
const M_MMAP_THRESHOLD: i32 = -3;
const M_ARENA_MAX: i32 = -8;
const M_TRIM_THRESHOLD: i32 = -1;
/** Allocations from this size up are mapped on their own and unmapped when freed. */
const MMAP_THRESHOLD: i32 = 256 << 10;
/**
 * Free memory at the top of the heap up to this much is kept, not given back at once: with the
 * mmap threshold fixed glibc leaves its trim threshold at 128 KB, and the scan's frees gave back
 * memory that its next allocations faulted in again, zeroed. On a machine whose page faults are
 * dear (a paravirtualized guest) eslint's scan made 123,000-129,000 page faults and took 4.62-4.65 s;
 * with 2 MB 91,000-105,000 and 4.04-4.53 s, with 8 MB 72,000-80,000 and 4.09-4.39 s (alternated,
 * set through MALLOC_TRIM_THRESHOLD_; docs/ARCHITECTURE.md, fifteenth round).
 * In one bench 2 MB held 0-7 MiB more summed (rails 244 against 237, git/git 275 both), 8 MB 8-10:
 * the fourteenth round measured 8 MB at 22 MiB more on git/git, too near its 300.
 */
const TRIM_THRESHOLD: i32 = 2 << 20;

/**
 * Sets the allocator up for a scan's process (the CLI's; the service keeps glibc's defaults): one
 * arena for the threads that start using it from now on, a fixed threshold above which an
 * allocation is mapped on its own, and how much free memory the heap keeps at its top
 * (TRIM_THRESHOLD). By default glibc gives each thread an arena of its own (the
 * reader's four threads, four arenas, each keeping the holes of its rebuilt objects and evicted
 * cache entries) and raises its threshold to the largest block freed so far (up to 32 MB), so that
 * large objects' buffers come from the arenas too and leave holes there. On rails the scan's process
 * peaked at 225 MB with the defaults and 204 MB with this, in the same time; a million synthetic
 * commits, 246-254 MB and 231 MB.
 */
extern "C" fn keep_allocator_compact(env: napi_env, _info: napi_callback_info) -> napi_value {
    unsafe {
        mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD);
        mallopt(M_ARENA_MAX, 1);
        mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD);
    }
    undefined(env)
}

extern "C" fn read(env: napi_env, info: napi_callback_info) -> napi_value {
    let [db, ids, max, out, done] = args::<5>(env, info);
    let Some(handle) = handle_of(env, db) else { return throw(env, "read: not a database") };
    let Some(ids) = buffer_call::ids_of(env, ids) else { return throw(env, "read: ids must be a Buffer of 20-byte ids") };
    let mut max_size = 0.0;
    if unsafe { napi_get_value_double(env, max, &mut max_size) } != NAPI_OK || !(max_size >= 0.0) {
        return throw(env, "read: maxObjectSize must be a number");
    }
    let max_size = max_size.min(u32::MAX as f64) as u64;
    let odb = handle.odb.lock().unwrap_or_else(|p| p.into_inner()).clone();
    let job: buffer_call::Job = Box::new(move |out| match odb {
        None => Err("read: the database is closed".into()),
        Some(odb) => read_all(&odb, &ids, max_size, out),
    });
    buffer_call::queue(env, "read", c"svc object read", out, 6, done, job)
}

/**
 * Gives the allocator's free memory back to the system when the process's resident memory has grown
 * TRIM_AFTER_GROWTH past its lowest since the last time. The delta chains rebuilt and the caches'
 * turnover leave free chunks all over glibc's arena: on git/git 48 MB free against 36 MB in use by
 * the listing's end, all of it resident. Trimming every 32nd call instead spent much of the scan's
 * system time faulting the pages it gave back in again, zeroed: git/git 12.9 s of system time and
 * 40.0 s, now 9.2 s and 36.7 s, the process's peak 241 MB against 235 (eslint 1.81 s to 1.51 s of
 * system time; rails the same).
 */
pub fn trim_now_and_then() {
    use std::sync::atomic::{AtomicU64, Ordering};
    static LOWEST: AtomicU64 = AtomicU64::new(u64::MAX);
    let Some(resident) = resident_bytes() else { return };
    let lowest = LOWEST.fetch_min(resident, Ordering::Relaxed).min(resident);
    if resident > lowest.saturating_add(TRIM_AFTER_GROWTH) {
        unsafe { malloc_trim(0) };
        LOWEST.store(resident_bytes().unwrap_or(resident), Ordering::Relaxed);
    }
}

/** How far resident memory may grow between two trims. */
const TRIM_AFTER_GROWTH: u64 = 32 << 20;

/** This process's resident memory (`/proc/self/statm`'s second field, in pages). */
fn resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split(' ').nth(1)?.parse().ok()?;
    let page_size = unsafe { sysconf(SC_PAGESIZE) };
    Some(pages * u64::try_from(page_size).ok()?)
}

fn read_all(odb: &Odb, ids: &[u8], max_size: u64, out: &mut [u8]) -> Result<usize, String> {
    let mut scratch = Scratch::of_this_thread()?;
    let used = read_into(odb, ids, max_size, out, &mut scratch);
    scratch.keep_for_this_thread();
    Ok(used)
}

/** Answers as many of `ids` as fit in `out`; returns the bytes used. */
fn read_into(odb: &Odb, ids: &[u8], max_size: u64, out: &mut [u8], scratch: &mut Scratch) -> usize {
    let mut used = 0;
    let largest = (out.len() - 6) as u64; // an object larger than this cannot be answered here
    for (number, chunk) in ids.chunks_exact(20).enumerate() {
        if out.len() - used < 6 {
            break;
        }
        let id: &[u8; 20] = chunk.try_into().unwrap();
        let room = &mut out[used + 6..];
        // A fault in the reader is one object left to git, not a failed scan.
        let answer = catch_unwind(AssertUnwindSafe(|| odb.read(id, max_size.min(largest), room, scratch)))
            .unwrap_or_else(|_| {
                // The inflate stream may be mid-object: start it again.
                if let Ok(fresh) = Scratch::new() {
                    *scratch = fresh;
                }
                Answer::LeaveToGit(0, 0)
            });
        let (status, kind, size) = match answer {
            Answer::Found(kind, size) => (FOUND, kind, size as u64),
            Answer::Missing => (NOT_FOUND, 0, 0),
            Answer::LeaveToGit(kind, size) => (LEFT_TO_GIT, kind, size),
            // Fits on its own: the next call, where it comes first, reads it.
            Answer::NoRoom(..) if number > 0 => break,
            Answer::NoRoom(kind, size) => (LEFT_TO_GIT, kind, size),
        };
        out[used] = status;
        out[used + 1] = kind;
        out[used + 2..used + 6].copy_from_slice(&(size.min(u32::MAX as u64) as u32).to_le_bytes());
        used += 6 + if status == FOUND { size as usize } else { 0 };
    }
    used
}

fn export(env: napi_env, exports: napi_value, name: &std::ffi::CStr, f: napi_callback) {
    unsafe {
        let mut function = null_mut();
        napi_create_function(env, name.as_ptr(), usize::MAX, f, null_mut(), &mut function);
        napi_set_named_property(env, exports, name.as_ptr(), function);
    }
}

#[no_mangle]
pub extern "C" fn napi_register_module_v1(env: napi_env, exports: napi_value) -> napi_value {
    // A panic is caught per object (read_all) and becomes "left to git": nothing to print for it.
    std::panic::set_hook(Box::new(|_| {}));
    export(env, exports, c"open", open);
    export(env, exports, c"read", read);
    export(env, exports, c"listChanges", listing::list_changes);
    export(env, exports, c"listParentChanges", listing::list_parent_changes);
    export(env, exports, c"walkCommits", commit_walk::walk_commits);
    export(env, exports, c"writeDiffIndex", diff_index::write_diff_index);
    export(env, exports, c"close", close);
    export(env, exports, c"releaseFreeMemory", release_free_memory);
    export(env, exports, c"keepAllocatorCompact", keep_allocator_compact);
    exports
}

#[no_mangle]
pub extern "C" fn node_api_module_get_api_version_v1() -> i32 {
    8
}
