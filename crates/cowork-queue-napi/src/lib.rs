//! The workspace's task store as a Node-API module, so that a routine's `ctx.queue` runs in the
//! routine's own process. Through the daemon each call was a synchronous round trip over the
//! run's pipes (~100 µs) around ~27 µs of store work: one-at-a-time send, receive and ack ran at
//! a quarter of the store's speed. Here a call is the store's work and a JSON encoding each way.
//!
//! One function, `call(workspaceRoot, request)`: `request` is the JSON of one
//! [`cowork_queue::Call`] (`{"method": "send", "queue": …}`, what runner.mjs sent the daemon as
//! the `queue` op), and the answer is the JSON the daemon answered — `{"ok": …}` or
//! `{"error": {"name", "message"}}` — so the runner turns both into the same values and named
//! errors whichever way the call went. The first call opens the store ([`Store::open`]: no
//! symlinked folder, the file's identity, the migrations) and the process holds it to its end,
//! as the daemon held one store for a run; a later call naming another workspace is refused.
//!
//! What this widens: nothing. The module runs inside the routine's process and its confinement
//! (confine.rs grants the workspace, `.cowork/local/` with it), so it opens only what the
//! routine's own code could open; the store's checks keep it on `.cowork/local/queues.db`. What a
//! routine passes (`as`, `from` through `reply`) it passed to the daemon before, which took it
//! as given too.
//!
//! The hot verbs of a one-at-a-time loop — `send(queue, body)`, `receive(queue, as)`,
//! `ack(queue, id, receipt)`, each without options — also have typed entry points, after
//! `bind(workspaceRoot)` once: their arguments cross as JavaScript strings and numbers and become
//! the same [`Call`] the JSON would have parsed to, so the store does and answers exactly what
//! `call` does (cowork-queue-napi's tests compare the two), without the request's JSON encoding,
//! its parse, or the workspace root read on every call. The answer stays JSON: JavaScript parses
//! it faster than it builds the same object property by property through Node-API.
//!
//! The Node-API functions used are declared here by hand (eight of them, looked up in the running
//! Bun or Node when the module is registered) rather than through the `napi` crates: they would
//! add two proc-macro crates and a build script to the workspace for that.
#![allow(unsafe_code)] // the Node-API boundary: see each block.
#![warn(missing_docs)]

use cowork_queue::{Call, QueueError, ReceiveOptions, Store};
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Mutex, OnceLock, PoisonError};

type Env = *mut c_void;
type Value = *mut c_void;
type CallbackInfo = *mut c_void;
type Status = c_int;
type Callback = unsafe extern "C" fn(Env, CallbackInfo) -> Value;

const OK: Status = 0;

/// The Node-API functions this module calls, looked up in the running program (Bun or Node,
/// which export them) when the module is registered: linked as undefined symbols instead, the
/// crate's rlib could not be linked into a program that is not a runtime (its own tests).
struct Api {
    get_cb_info: unsafe extern "C" fn(
        Env,
        CallbackInfo,
        *mut usize,
        *mut Value,
        *mut Value,
        *mut *mut c_void,
    ) -> Status,
    get_value_string_utf8:
        unsafe extern "C" fn(Env, Value, *mut c_char, usize, *mut usize) -> Status,
    get_value_int64: unsafe extern "C" fn(Env, Value, *mut i64) -> Status,
    create_string_utf8: unsafe extern "C" fn(Env, *const c_char, usize, *mut Value) -> Status,
    get_boolean: unsafe extern "C" fn(Env, bool, *mut Value) -> Status,
    create_function: unsafe extern "C" fn(
        Env,
        *const c_char,
        usize,
        Callback,
        *mut c_void,
        *mut Value,
    ) -> Status,
    set_named_property: unsafe extern "C" fn(Env, Value, *const c_char, Value) -> Status,
    throw_error: unsafe extern "C" fn(Env, *const c_char, *const c_char) -> Status,
}

static API: OnceLock<Option<Api>> = OnceLock::new();

impl Api {
    fn get() -> Option<&'static Api> {
        API.get_or_init(|| {
            /// The address of `name` in the running program, as a function pointer of type `T`.
            ///
            /// # Safety
            /// `T` must be the symbol's true signature (the Node-API header's).
            #[cfg(unix)]
            unsafe fn find<T>(name: &CStr) -> Option<T> {
                // SAFETY: dlsym on the default scope with a NUL-terminated name.
                let address = unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) };
                // SAFETY: a non-null symbol of the runtime, of the caller's signature.
                (!address.is_null()).then(|| unsafe { std::mem::transmute_copy(&address) })
            }
            /// Elsewhere (Windows) the module registers nothing: ctx.queue goes through the engine.
            #[cfg(not(unix))]
            unsafe fn find<T>(_name: &CStr) -> Option<T> {
                None
            }
            // SAFETY: each signature is node_api.h's for that name.
            unsafe {
                Some(Api {
                    get_cb_info: find(c"napi_get_cb_info")?,
                    get_value_string_utf8: find(c"napi_get_value_string_utf8")?,
                    get_value_int64: find(c"napi_get_value_int64")?,
                    create_string_utf8: find(c"napi_create_string_utf8")?,
                    get_boolean: find(c"napi_get_boolean")?,
                    create_function: find(c"napi_create_function")?,
                    set_named_property: find(c"napi_set_named_property")?,
                    throw_error: find(c"napi_throw_error")?,
                })
            }
        })
        .as_ref()
    }
}

/// The store this process opened, with the workspace root it was opened for.
static OPENED: Mutex<Option<(String, Store)>> = Mutex::new(None);

/// Runs one call (the JSON of a [`Call`]) on `workspace`'s store; the answer's JSON, `{"ok": …}`
/// or `{"error": {"name", "message"}}`, as the daemon answers the `queue` op.
pub fn answer(workspace: &str, request: &str) -> String {
    match serde_json::from_str::<Call>(request) {
        Ok(call) => answer_call(workspace, call),
        // As the daemon words a request that does not fit (protocol.rs).
        Err(e) => error("BadRequest", &format!("ctx request \"queue\": {e}")),
    }
}

/// `send(queue, body)` without options, as [`answer`] runs `{"method": "send", …}`.
pub fn send(workspace: &str, queue: &str, body: &str) -> String {
    let call = Call::Send { queue: queue.into(), body: body.into(), options: Default::default() };
    answer_call(workspace, call)
}

/// `receive(queue, { as })` (or without `as`), as [`answer`] runs `{"method": "receive", …}`.
pub fn receive(workspace: &str, queue: &str, receiver: Option<&str>) -> String {
    let options = ReceiveOptions { receiver: receiver.map(str::to_string), ..Default::default() };
    answer_call(workspace, Call::Receive { queue: queue.into(), options })
}

/// `ack(queue, id, receipt)` without options, as [`answer`] runs `{"method": "ack", …}`.
pub fn ack(workspace: &str, queue: &str, id: i64, receipt: &str) -> String {
    let call =
        Call::Ack { queue: queue.into(), id, receipt: receipt.into(), options: Default::default() };
    answer_call(workspace, call)
}

/// Runs one call on `workspace`'s store, opening it at the first; the answer's JSON.
fn answer_call(workspace: &str, call: Call) -> String {
    let mut opened = OPENED.lock().unwrap_or_else(PoisonError::into_inner);
    let store = match &mut *opened {
        Some((root, store)) if root == workspace => store,
        Some((root, _)) => {
            return error(
                "BadRequest",
                &format!("failed to open the task store of {workspace:?}: this run's store is {root:?}'s (one workspace per run)"),
            )
        }
        None => match Store::open(std::path::Path::new(workspace)) {
            Ok(store) => &mut opened.insert((workspace.to_string(), store)).1,
            Err(e) => return queue_error(&e),
        },
    };
    match store.answer(call) {
        Ok(answer) => {
            // Written after `{"ok":` in one buffer, not serialized and then copied into it.
            let mut text = Vec::with_capacity(512);
            text.extend_from_slice(br#"{"ok":"#);
            serde_json::to_writer(&mut text, &answer).expect("an answer always serializes");
            text.push(b'}');
            String::from_utf8(text).expect("serde_json writes UTF-8")
        }
        Err(e) => queue_error(&e),
    }
}

fn queue_error(e: &QueueError) -> String {
    let name = serde_json::to_value(e.name()).expect("an error name serializes");
    let name = name.as_str().unwrap_or("Internal").to_string();
    error(&name, &e.to_string())
}

fn error(name: &str, message: &str) -> String {
    serde_json::json!({ "error": { "name": name, "message": message } }).to_string()
}

/// The workspace root `bind` gave: the typed verbs' store.
static BOUND: OnceLock<String> = OnceLock::new();

/// `call(workspaceRoot, request)` as JavaScript calls it: two strings in, one out; anything else
/// throws (only runner.mjs calls it).
unsafe extern "C" fn call(env: Env, info: CallbackInfo) -> Value {
    // SAFETY: the runtime's own call.
    unsafe {
        entry(env, info, |api, [root, request]| {
            match (string(api, env, root), string(api, env, request)) {
                (Some(workspace), Some(request)) => Ok(Reply::Text(answer(&workspace, &request))),
                _ => Err("call(workspaceRoot, request) takes two strings"),
            }
        })
    }
}

/// `bind(workspaceRoot)`: the workspace the typed verbs below use, once per process (a run is in
/// one workspace). Answers the boolean `true` (runner.mjs takes the typed verbs only on `=== true`:
/// the string "true" it answered once sent every call through the JSON `call`); binding another
/// workspace throws.
unsafe extern "C" fn bind(env: Env, info: CallbackInfo) -> Value {
    // SAFETY: the runtime's own call.
    unsafe {
        entry(env, info, |api, [root]| {
            let root = string(api, env, root).ok_or("bind(workspaceRoot) takes a string")?;
            match BOUND.get_or_init(|| root.clone()) == &root {
                true => Ok(Reply::True),
                false => Err("bind(workspaceRoot): this process is bound to another workspace"),
            }
        })
    }
}

/// The bound workspace, for a typed verb.
fn bound() -> Result<&'static str, &'static str> {
    BOUND.get().map(String::as_str).ok_or("bind(workspaceRoot) first")
}

/// `send(queue, body)`: [`send`].
unsafe extern "C" fn send_entry(env: Env, info: CallbackInfo) -> Value {
    // SAFETY: the runtime's own call.
    unsafe {
        entry(env, info, |api, [queue, body]| {
            match (string(api, env, queue), string(api, env, body)) {
                (Some(queue), Some(body)) => Ok(Reply::Text(send(bound()?, &queue, &body))),
                _ => Err("send(queue, body) takes two strings"),
            }
        })
    }
}

/// `receive(queue, as)`, `as` a string or null: [`receive`].
unsafe extern "C" fn receive_entry(env: Env, info: CallbackInfo) -> Value {
    // SAFETY: the runtime's own call.
    unsafe {
        entry(env, info, |api, [queue, receiver]| {
            let queue = string(api, env, queue).ok_or("receive(queue, as) takes a queue name")?;
            // Anything but a string (null, undefined) is no receiver, as JSON leaves it out.
            Ok(Reply::Text(receive(bound()?, &queue, string(api, env, receiver).as_deref())))
        })
    }
}

/// `ack(queue, id, receipt)`: [`ack`].
unsafe extern "C" fn ack_entry(env: Env, info: CallbackInfo) -> Value {
    // SAFETY: the runtime's own call.
    unsafe {
        entry(env, info, |api, [queue, id, receipt]| {
            let mut number = 0i64;
            let id = (!id.is_null() && (api.get_value_int64)(env, id, &mut number) == OK)
                .then_some(number);
            match (string(api, env, queue), id, string(api, env, receipt)) {
                (Some(queue), Some(id), Some(receipt)) => {
                    Ok(Reply::Text(ack(bound()?, &queue, id, &receipt)))
                }
                _ => Err("ack(queue, id, receipt) takes a string, an integer and a string"),
            }
        })
    }
}

/// What a function answers JavaScript: the JSON text of an answer, or `true` (`bind`).
enum Reply {
    Text(String),
    True,
}

/// One function's call from JavaScript: its first `N` arguments (null where fewer were passed)
/// handed to `run`, whose reply is answered; `Err` throws a `BadRequest` (a wrong call of
/// runner.mjs's, not the store's refusal, which is answered as JSON), a panic is answered as an
/// `Internal` error.
///
/// # Safety
/// `env` and `info` must be the runtime's, for this call.
unsafe fn entry<const N: usize>(
    env: Env,
    info: CallbackInfo,
    run: impl FnOnce(&Api, [Value; N]) -> Result<Reply, &'static str>,
) -> Value {
    // Registered only once the API was found.
    let Some(api) = Api::get() else { return std::ptr::null_mut() };
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        let mut argc = N;
        let mut argv: [Value; N] = [std::ptr::null_mut(); N];
        // SAFETY: argv has room for argc values; `this` and `data` may be null.
        let got = unsafe {
            (api.get_cb_info)(
                env,
                info,
                &mut argc,
                argv.as_mut_ptr(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        };
        if got != OK || argc < N {
            return Err("too few arguments");
        }
        run(api, argv)
    }));
    let reply = match outcome {
        Ok(Ok(reply)) => reply,
        Ok(Err(message)) => {
            // SAFETY: env is this call's.
            unsafe { throw(api, env, "BadRequest", message) };
            return std::ptr::null_mut();
        }
        Err(_) => Reply::Text(error(
            "Internal",
            "the task store failed unexpectedly (a panic in cowork-queue)",
        )),
    };
    let mut result: Value = std::ptr::null_mut();
    let made = match reply {
        // SAFETY: text is valid UTF-8 of the given length; result receives the new string.
        Reply::Text(text) => unsafe {
            (api.create_string_utf8)(env, text.as_ptr().cast(), text.len(), &mut result)
        },
        // SAFETY: result receives the runtime's `true`.
        Reply::True => unsafe { (api.get_boolean)(env, true, &mut result) },
    };
    if made != OK {
        // SAFETY: env is this call's.
        unsafe {
            throw(api, env, "Internal", "failed to hand the task store's answer to JavaScript")
        };
        return std::ptr::null_mut();
    }
    result
}

/// A JavaScript string's UTF-8 text, or `None` for anything else (a null value included).
///
/// # Safety
/// `env` and `value` must be the current call's.
unsafe fn string(api: &Api, env: Env, value: Value) -> Option<String> {
    if value.is_null() {
        return None;
    }
    // Most arguments (a queue's name, a receiver's, a receipt, a short body) fit a small buffer
    // and are read in one call, rather than one for the length and one for the text. Node-API
    // fills at most `len - 1` bytes and stops before a character that does not fit: what ends
    // within 4 bytes of the end may have been cut, and is read again as below.
    let mut small = [0u8; 256];
    // SAFETY: the current call's env and value.
    let written = unsafe { utf8_into(api, env, value, &mut small) }?;
    if written + 4 < small.len() {
        return String::from_utf8(small[..written].to_vec()).ok();
    }
    let mut length = 0usize;
    // SAFETY: a null buffer asks for the length only.
    let status =
        unsafe { (api.get_value_string_utf8)(env, value, std::ptr::null_mut(), 0, &mut length) };
    if status != OK {
        return None;
    }
    let mut buffer = vec![0u8; length + 1];
    // SAFETY: the current call's env and value.
    let written = unsafe { utf8_into(api, env, value, &mut buffer) }?;
    buffer.truncate(written);
    String::from_utf8(buffer).ok()
}

/// Copies a JavaScript string's UTF-8 into `buffer` (at most its length − 1 bytes, then a NUL);
/// the bytes written, or `None` for anything but a string.
///
/// # Safety
/// `env` and `value` must be the current call's.
unsafe fn utf8_into(api: &Api, env: Env, value: Value, buffer: &mut [u8]) -> Option<usize> {
    let mut written = 0usize;
    // SAFETY: the buffer holds `buffer.len()` bytes, the NUL Node-API adds included.
    let status = unsafe {
        (api.get_value_string_utf8)(
            env,
            value,
            buffer.as_mut_ptr().cast(),
            buffer.len(),
            &mut written,
        )
    };
    (status == OK).then_some(written)
}

/// Throws an error with `code` and `message` in JavaScript.
///
/// # Safety
/// `env` must be the current call's.
unsafe fn throw(api: &Api, env: Env, code: &str, message: &str) {
    let code = CString::new(code).unwrap_or_default();
    let message = CString::new(message).unwrap_or_default();
    // SAFETY: both are NUL-terminated and outlive the call.
    unsafe { (api.throw_error)(env, code.as_ptr(), message.as_ptr()) };
}

/// Turns off SQLite's memory statistics before this module's SQLite (its own copy, linked into
/// the module) starts: with them on, every allocation and free SQLite makes takes a global
/// mutex to count it — ~3% of a one-at-a-time send, receive and ack. Nothing here reads the
/// counts. Only in a runtime that loads the module: a program linking the crate (the engine)
/// keeps SQLite's defaults. Once SQLite has started the setting is refused, which changes nothing.
fn without_memory_statistics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // SAFETY: SQLITE_CONFIG_MEMSTATUS takes one int; sqlite3_config is called before any
        // other SQLite call of this module (its first store opens after registration).
        unsafe {
            rusqlite::ffi::sqlite3_config(rusqlite::ffi::SQLITE_CONFIG_MEMSTATUS, 0 as c_int)
        };
    });
}

/// The module's entry, which Node and Bun look up by this name when they load it: `exports.call`,
/// `bind`, `send`, `receive` and `ack`. In a program that is not a Node-API runtime the exports
/// stay empty.
///
/// # Safety
/// Called by the runtime with its environment and the module's exports object.
#[no_mangle]
pub unsafe extern "C" fn napi_register_module_v1(env: Env, exports: Value) -> Value {
    let Some(api) = Api::get() else { return exports };
    without_memory_statistics();
    let functions: [(&CStr, Callback); 5] = [
        (c"call", call),
        (c"bind", bind),
        (c"send", send_entry),
        (c"receive", receive_entry),
        (c"ack", ack_entry),
    ];
    for (name, callback) in functions {
        let mut function: Value = std::ptr::null_mut();
        // SAFETY: the name is a NUL-terminated literal; `callback` has the callback's signature.
        let status = unsafe {
            (api.create_function)(
                env,
                name.as_ptr(),
                name.to_bytes().len(),
                callback,
                std::ptr::null_mut(),
                &mut function,
            )
        };
        if status == OK {
            // SAFETY: exports and function are this environment's values.
            unsafe { (api.set_named_property)(env, exports, name.as_ptr(), function) };
        }
    }
    exports
}
