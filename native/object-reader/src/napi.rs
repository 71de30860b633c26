//! The few Node-API functions this module calls, declared by hand (no crates here). Node exports
//! them; they resolve when Node loads the module. Signatures as in Node's js_native_api.h and
//! node_api.h.

#![allow(non_camel_case_types)]

use std::os::raw::{c_char, c_int, c_void};

pub type napi_env = *mut c_void;
pub type napi_value = *mut c_void;
pub type napi_ref = *mut c_void;
pub type napi_callback_info = *mut c_void;
pub type napi_status = c_int;
pub type napi_callback = extern "C" fn(napi_env, napi_callback_info) -> napi_value;
pub type napi_finalize = extern "C" fn(napi_env, *mut c_void, *mut c_void);
pub type napi_threadsafe_function = *mut c_void;
pub type napi_threadsafe_function_call_js = extern "C" fn(napi_env, napi_value, *mut c_void, *mut c_void);

pub const NAPI_OK: napi_status = 0;
/** napi_tsfn_blocking: wait for room in the function's queue (its size is unlimited here). */
pub const NAPI_TSFN_BLOCKING: c_int = 1;
/** napi_tsfn_release: this thread is done with the function. */
pub const NAPI_TSFN_RELEASE: c_int = 0;

extern "C" {
    pub fn napi_create_function(
        env: napi_env,
        name: *const c_char,
        length: usize,
        cb: napi_callback,
        data: *mut c_void,
        result: *mut napi_value,
    ) -> napi_status;
    pub fn napi_set_named_property(env: napi_env, object: napi_value, name: *const c_char, value: napi_value) -> napi_status;
    pub fn napi_get_cb_info(
        env: napi_env,
        info: napi_callback_info,
        argc: *mut usize,
        argv: *mut napi_value,
        this_arg: *mut napi_value,
        data: *mut *mut c_void,
    ) -> napi_status;
    pub fn napi_get_value_string_utf8(env: napi_env, value: napi_value, buf: *mut c_char, bufsize: usize, result: *mut usize) -> napi_status;
    pub fn napi_get_array_length(env: napi_env, value: napi_value, result: *mut u32) -> napi_status;
    pub fn napi_get_element(env: napi_env, object: napi_value, index: u32, result: *mut napi_value) -> napi_status;
    pub fn napi_get_buffer_info(env: napi_env, value: napi_value, data: *mut *mut c_void, length: *mut usize) -> napi_status;
    pub fn napi_get_value_double(env: napi_env, value: napi_value, result: *mut f64) -> napi_status;
    pub fn napi_get_value_bool(env: napi_env, value: napi_value, result: *mut bool) -> napi_status;
    pub fn napi_get_value_int32(env: napi_env, value: napi_value, result: *mut i32) -> napi_status;
    pub fn napi_create_external(
        env: napi_env,
        data: *mut c_void,
        finalize_cb: napi_finalize,
        finalize_hint: *mut c_void,
        result: *mut napi_value,
    ) -> napi_status;
    pub fn napi_get_value_external(env: napi_env, value: napi_value, result: *mut *mut c_void) -> napi_status;
    pub fn napi_typeof(env: napi_env, value: napi_value, result: *mut c_int) -> napi_status;
    pub fn napi_create_reference(env: napi_env, value: napi_value, initial_refcount: u32, result: *mut napi_ref) -> napi_status;
    pub fn napi_get_reference_value(env: napi_env, reference: napi_ref, result: *mut napi_value) -> napi_status;
    pub fn napi_delete_reference(env: napi_env, reference: napi_ref) -> napi_status;
    pub fn napi_create_threadsafe_function(
        env: napi_env,
        func: napi_value,
        async_resource: napi_value,
        async_resource_name: napi_value,
        max_queue_size: usize,
        initial_thread_count: usize,
        thread_finalize_data: *mut c_void,
        thread_finalize_cb: Option<napi_finalize>,
        context: *mut c_void,
        call_js_cb: napi_threadsafe_function_call_js,
        result: *mut napi_threadsafe_function,
    ) -> napi_status;
    pub fn napi_call_threadsafe_function(func: napi_threadsafe_function, data: *mut c_void, is_blocking: c_int) -> napi_status;
    pub fn napi_release_threadsafe_function(func: napi_threadsafe_function, mode: c_int) -> napi_status;
    pub fn napi_call_function(
        env: napi_env,
        recv: napi_value,
        func: napi_value,
        argc: usize,
        argv: *const napi_value,
        result: *mut napi_value,
    ) -> napi_status;
    pub fn napi_get_undefined(env: napi_env, result: *mut napi_value) -> napi_status;
    pub fn napi_get_null(env: napi_env, result: *mut napi_value) -> napi_status;
    pub fn napi_create_string_utf8(env: napi_env, s: *const c_char, length: usize, result: *mut napi_value) -> napi_status;
    pub fn napi_create_error(env: napi_env, code: napi_value, msg: napi_value, result: *mut napi_value) -> napi_status;
    pub fn napi_throw_error(env: napi_env, code: *const c_char, msg: *const c_char) -> napi_status;
    pub fn napi_create_double(env: napi_env, value: f64, result: *mut napi_value) -> napi_status;
}

pub const NAPI_UNDEFINED: c_int = 0;
pub const NAPI_NULL: c_int = 1;
pub const NAPI_FUNCTION: c_int = 7;
pub const NAPI_EXTERNAL: c_int = 8;
