//! zlib's inflate through its C interface (the system's libz, or the copy Node exports): the one
//! library this crate links, as git itself does.

use std::os::raw::{c_char, c_int, c_uint, c_ulong, c_void};

#[repr(C)]
struct ZStream {
    next_in: *const u8,
    avail_in: c_uint,
    total_in: c_ulong,
    next_out: *mut u8,
    avail_out: c_uint,
    total_out: c_ulong,
    msg: *const c_char,
    state: *mut c_void,
    zalloc: *const c_void,
    zfree: *const c_void,
    opaque: *mut c_void,
    data_type: c_int,
    adler: c_ulong,
    reserved: c_ulong,
}

extern "C" {
    fn inflateInit_(strm: *mut ZStream, version: *const c_char, stream_size: c_int) -> c_int;
    fn inflate(strm: *mut ZStream, flush: c_int) -> c_int;
    fn inflateReset(strm: *mut ZStream) -> c_int;
    fn inflateEnd(strm: *mut ZStream) -> c_int;
}

const Z_OK: c_int = 0;
const Z_STREAM_END: c_int = 1;
const Z_BUF_ERROR: c_int = -5;
const Z_NO_FLUSH: c_int = 0;

/** What one call of `Inflater::step` came to. */
pub enum Step {
    /** The stream ended; this many input bytes were taken in all. */
    End,
    /** More input is needed (all given was taken) or more room for output. */
    More,
}

/**
 * One inflate stream, reused object after object (`reset`): its state and 32 KB window are set up
 * once. Boxed, because zlib's state points back at the stream and it must not move.
 */
pub struct Inflater {
    stream: Box<ZStream>,
}

// The stream is only ever used by the thread that owns the Inflater.
unsafe impl Send for Inflater {}

impl Inflater {
    pub fn new() -> Result<Inflater, String> {
        let mut stream = Box::new(ZStream {
            next_in: std::ptr::null(),
            avail_in: 0,
            total_in: 0,
            next_out: std::ptr::null_mut(),
            avail_out: 0,
            total_out: 0,
            msg: std::ptr::null(),
            state: std::ptr::null_mut(),
            zalloc: std::ptr::null(),
            zfree: std::ptr::null(),
            opaque: std::ptr::null_mut(),
            data_type: 0,
            adler: 0,
            reserved: 0,
        });
        // Only the first character of the version is compared by zlib.
        let version = b"1.2.13\0";
        let code = unsafe {
            inflateInit_(&mut *stream, version.as_ptr() as *const c_char, std::mem::size_of::<ZStream>() as c_int)
        };
        if code != Z_OK {
            return Err(format!("zlib would not start (code {code})"));
        }
        Ok(Inflater { stream })
    }

    pub fn reset(&mut self) {
        unsafe { inflateReset(&mut *self.stream) };
    }

    /**
     * Inflates from `input` into `output[*written..]`; `*taken` and `*written` advance by what zlib
     * consumed and produced. A damaged stream is an error.
     */
    pub fn step(&mut self, input: &[u8], taken: &mut usize, output: &mut [u8], written: &mut usize) -> Result<Step, String> {
        let out_left = &mut output[*written..];
        let (pointer, room) = (out_left.as_mut_ptr(), out_left.len());
        self.step_into(input, taken, pointer, room, written)
    }

    fn step_into(&mut self, input: &[u8], taken: &mut usize, out: *mut u8, room: usize, written: &mut usize) -> Result<Step, String> {
        let in_left = &input[*taken..];
        let in_len = in_left.len().min(c_uint::MAX as usize);
        let out_len = room.min(c_uint::MAX as usize);
        let s = &mut *self.stream;
        s.next_in = in_left.as_ptr();
        s.avail_in = in_len as c_uint;
        s.next_out = out;
        s.avail_out = out_len as c_uint;
        let code = unsafe { inflate(s, Z_NO_FLUSH) };
        *taken += in_len - s.avail_in as usize;
        *written += out_len - s.avail_out as usize;
        s.next_in = std::ptr::null();
        s.next_out = std::ptr::null_mut();
        match code {
            Z_STREAM_END => Ok(Step::End),
            Z_OK => Ok(Step::More),
            // No progress was possible: output full, or input used up; the caller tells which.
            Z_BUF_ERROR => Ok(Step::More),
            _ => Err(format!("damaged compressed data (zlib code {code})")),
        }
    }
}

impl Drop for Inflater {
    fn drop(&mut self) {
        unsafe { inflateEnd(&mut *self.stream) };
    }
}
