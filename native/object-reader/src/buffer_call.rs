//! What read and listChanges share: arguments checked on the main thread, a job run on one of this
//! module's worker threads with the caller's `out` Buffer (held by a reference until the job is
//! done), then done(error, used) called back on the main thread.
//!
//! The jobs run on threads of their own (worker_pool.rs), not on libuv's pool: that pool has four
//! threads unless UV_THREADPOOL_SIZE says otherwise before Node first uses it (an ES module entry
//! cannot: loading it used the pool), and a scan keeps up to three listings and two reads under way
//! at once (native-listing.ts, native-blob-stream.ts). On libuv's four, the reads waited behind the
//! listings, and Node's own file reads behind both.

use crate::napi::*;
use crate::worker_pool;
use crate::{throw, trim_now_and_then, undefined};
use std::ffi::CStr;
use std::os::raw::{c_char, c_void};
use std::ptr::null_mut;

/** What runs on the worker thread: writes into `out`, gives the bytes used. No JavaScript in it. */
pub type Job = Box<dyn FnOnce(&mut [u8]) -> Result<usize, String> + Send>;

struct Call {
    job: Option<Job>,
    out: *mut u8,
    out_len: usize,
    out_ref: napi_ref,
    done: napi_ref,
    /** How the worker thread hands the call back to the main thread. */
    back: napi_threadsafe_function,
    result: Result<usize, String>,
}

/** A call on its way to a worker thread and back: only that thread touches it meanwhile. */
struct Sent(*mut Call);
unsafe impl Send for Sent {}

/**
 * The 20-byte ids in `value`, copied (the worker reads its own copy), or None when it is not a
 * Buffer of whole ids.
 */
pub fn ids_of(env: napi_env, value: napi_value) -> Option<Vec<u8>> {
    bytes_of(env, value).filter(|bytes| bytes.len() % 20 == 0)
}

/** The bytes of the Buffer `value`, copied; None when it is not a Buffer. */
pub fn bytes_of(env: napi_env, value: napi_value) -> Option<Vec<u8>> {
    let mut data = null_mut();
    let mut length = 0;
    if unsafe { napi_get_buffer_info(env, value, &mut data, &mut length) } != NAPI_OK {
        return None;
    }
    Some(if length == 0 { Vec::new() } else { unsafe { std::slice::from_raw_parts(data as *const u8, length) }.to_vec() })
}

/** Whether an optional argument was left out (null or undefined); None when its type cannot be told. */
pub fn is_absent(env: napi_env, value: napi_value) -> Option<bool> {
    let mut kind = 0;
    if unsafe { napi_typeof(env, value, &mut kind) } != NAPI_OK {
        return None;
    }
    Some(kind == NAPI_NULL || kind == NAPI_UNDEFINED)
}

/** An optional Buffer argument: Some(None) left out, Some(bytes) copied, None for anything else. */
pub fn optional_bytes_of(env: napi_env, value: napi_value) -> Option<Option<Vec<u8>>> {
    if is_absent(env, value)? {
        return Some(None);
    }
    bytes_of(env, value).map(Some)
}

/**
 * Runs `job` on a worker thread with `out`'s bytes, then calls `done(error, used)`; throws (named by
 * `call`) when `out` is not a Buffer of at least `min_out` bytes, `done` not a function, or the work
 * cannot be queued.
 */
pub fn queue(env: napi_env, call: &str, name: &CStr, out: napi_value, min_out: usize, done: napi_value, job: Job) -> napi_value {
    let mut out_data = null_mut();
    let mut out_len = 0;
    if unsafe { napi_get_buffer_info(env, out, &mut out_data, &mut out_len) } != NAPI_OK || out_len < min_out {
        return throw(env, &format!("{call}: out must be a Buffer of at least {min_out} bytes"));
    }
    let mut kind = 0;
    if unsafe { napi_typeof(env, done, &mut kind) } != NAPI_OK || kind != NAPI_FUNCTION {
        return throw(env, &format!("{call}: done must be a function"));
    }
    let work = Box::into_raw(Box::new(Call {
        job: Some(job),
        out: out_data as *mut u8,
        out_len,
        out_ref: null_mut(),
        done: null_mut(),
        back: null_mut(),
        result: Err(String::new()),
    }));
    unsafe {
        let mut resource = null_mut();
        napi_create_string_utf8(env, name.as_ptr(), usize::MAX, &mut resource);
        napi_create_reference(env, done, 1, &mut (*work).done);
        napi_create_reference(env, out, 1, &mut (*work).out_ref);
        let created = napi_create_threadsafe_function(
            env,
            null_mut(),
            null_mut(),
            resource,
            0,
            1,
            null_mut(),
            None,
            null_mut(),
            complete,
            &mut (*work).back,
        );
        if created != NAPI_OK {
            napi_delete_reference(env, (*work).done);
            napi_delete_reference(env, (*work).out_ref);
            drop(Box::from_raw(work));
            return throw(env, &format!("{call}: could not queue the work"));
        }
    }
    let sent = Sent(work);
    worker_pool::run(Box::new(move || execute(sent)));
    undefined(env)
}

/** On a worker thread: `out` is held by a reference and written only here. */
fn execute(sent: Sent) {
    let work = unsafe { &mut *sent.0 };
    if let Some(job) = work.job.take() {
        let out = unsafe { std::slice::from_raw_parts_mut(work.out, work.out_len) };
        work.result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job(out)))
            .unwrap_or_else(|_| Err("the object reader failed".into()));
    }
    trim_now_and_then();
    let back = work.back;
    unsafe {
        // Refused only when Node is tearing the environment down: the call then goes with it.
        if napi_call_threadsafe_function(back, sent.0 as *mut c_void, NAPI_TSFN_BLOCKING) != NAPI_OK {
            drop(Box::from_raw(sent.0));
        }
        napi_release_threadsafe_function(back, NAPI_TSFN_RELEASE);
    }
}

/** Back on the main thread: hand the bytes used (or the error) to `done`. */
extern "C" fn complete(env: napi_env, _js: napi_value, _context: *mut c_void, data: *mut c_void) {
    let work = unsafe { Box::from_raw(data as *mut Call) };
    if env.is_null() {
        return; // the environment is going away: nothing to call
    }
    unsafe {
        let mut done = null_mut();
        napi_get_reference_value(env, work.done, &mut done);
        napi_delete_reference(env, work.done);
        napi_delete_reference(env, work.out_ref);
        let mut argv = [null_mut(); 2];
        napi_get_null(env, &mut argv[0]);
        argv[1] = undefined(env);
        match &work.result {
            Ok(used) => {
                napi_create_double(env, *used as f64, &mut argv[1]);
            }
            Err(message) => {
                let mut text = null_mut();
                napi_create_string_utf8(env, message.as_ptr() as *const c_char, message.len(), &mut text);
                napi_create_error(env, null_mut(), text, &mut argv[0]);
            }
        }
        let mut ignored = null_mut();
        // A throwing `done` surfaces as an uncaught exception, as with any callback.
        napi_call_function(env, undefined(env), done, 2, argv.as_ptr(), &mut ignored);
    }
}
