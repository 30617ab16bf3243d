//! Whole gzip members inflated by the system's libdeflate (Debian's `libdeflate0`, loaded at
//! run time), where it is installed: about 2.5x the speed of `miniz_oxide` on the simulator's
//! logs (0.37 against 0.9 CPU-s for 10^6 shuffles; BENCHMARKS.md). Debian packages no Rust
//! crate of it and no other inflater as fast (`zune-inflate` does not say where a member
//! ends; the system's zlib is no faster than `miniz_oxide`), so the four functions used are
//! declared here and found with `dlopen`; without the library (or with
//! `TABLECERT_LIBDEFLATE=0`) every member is inflated by `miniz_oxide` as before.
//!
//! libdeflate decodes a member only whole, from a buffer holding all of it, into a buffer
//! large enough for all of its bytes: it is used for the speculative decodes of
//! `members.rs`, which keep a member's bytes whole anyway, and it checks what the in-turn
//! decoder checks (the header's method and reserved flags, the deflate data, the CRC-32 and
//! the length) except a header CRC (FHCRC), so a member with one is left to `miniz_oxide`.

use std::ffi::{c_int, c_void, CStr};
use std::sync::OnceLock;

type Alloc = unsafe extern "C" fn() -> *mut c_void;
type Free = unsafe extern "C" fn(*mut c_void);
type GzipDecompressEx = unsafe extern "C" fn(
    *mut c_void,
    *const c_void,
    usize,
    *mut c_void,
    usize,
    *mut usize,
    *mut usize,
) -> c_int;

/// `enum libdeflate_result` (libdeflate.h).
const SUCCESS: c_int = 0;
const INSUFFICIENT_SPACE: c_int = 3;

/// The functions of a loaded libdeflate.
#[derive(Clone, Copy)]
pub struct Library {
    alloc: Alloc,
    free: Free,
    gzip_decompress_ex: GzipDecompressEx,
}

/// The system's libdeflate, loaded once; `None` where it is not installed or is turned off
/// by `TABLECERT_LIBDEFLATE=0`.
#[must_use]
pub fn library() -> Option<Library> {
    static LOADED: OnceLock<Option<Library>> = OnceLock::new();
    *LOADED.get_or_init(|| {
        if std::env::var_os("TABLECERT_LIBDEFLATE").is_some_and(|v| v == "0") {
            return None;
        }
        load(c"libdeflate.so.0")
    })
}

fn load(name: &CStr) -> Option<Library> {
    // SAFETY: `dlopen` and `dlsym` are given NUL-terminated names; each symbol found is one
    // of libdeflate's exported functions, whose C signature (libdeflate.h, stable since 1.0)
    // the type it is transmuted to declares. The library is never closed.
    unsafe {
        let handle = libc::dlopen(name.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL);
        if handle.is_null() {
            return None;
        }
        let symbol = |name: &CStr| {
            let f = libc::dlsym(handle, name.as_ptr());
            (!f.is_null()).then_some(f)
        };
        let alloc = symbol(c"libdeflate_alloc_decompressor")?;
        let free = symbol(c"libdeflate_free_decompressor")?;
        let gzip = symbol(c"libdeflate_gzip_decompress_ex")?;
        Some(Library {
            alloc: std::mem::transmute::<*mut c_void, Alloc>(alloc),
            free: std::mem::transmute::<*mut c_void, Free>(free),
            gzip_decompress_ex: std::mem::transmute::<*mut c_void, GzipDecompressEx>(gzip),
        })
    }
}

/// What inflating one member from a buffer gave.
#[derive(Debug, PartialEq, Eq)]
pub enum Member {
    /// The member is whole in the input: its first `used` bytes.
    Whole { used: usize },
    /// Its bytes do not fit in the room given.
    TooLarge,
    /// Not a member, or not whole in the input (libdeflate does not tell the two apart).
    Unreadable,
}

/// A libdeflate decompressor (one per thread: it is not shared).
pub struct Inflater {
    library: Library,
    state: *mut c_void,
}

impl Inflater {
    /// A decompressor, or `None` when libdeflate cannot allocate one.
    #[must_use]
    pub fn new(library: Library) -> Option<Inflater> {
        // SAFETY: a plain allocation; a null result is handled.
        let state = unsafe { (library.alloc)() };
        (!state.is_null()).then_some(Inflater { library, state })
    }

    /// Inflate the gzip member that starts at `input[0]` into `out` (cleared; its capacity
    /// is the room, at most `room` bytes and at least what it has).
    pub fn gzip_member(&mut self, input: &[u8], out: &mut Vec<u8>, room: usize) -> Member {
        out.clear();
        out.reserve(room);
        let (mut used, mut made) = (0usize, 0usize);
        // SAFETY: the input and the output's spare capacity are valid for the lengths given;
        // libdeflate writes at most `out.capacity()` bytes into the output and reports how
        // many it wrote in `made`, which only then become the vector's length.
        let result = unsafe {
            (self.library.gzip_decompress_ex)(
                self.state,
                input.as_ptr().cast(),
                input.len(),
                out.as_mut_ptr().cast(),
                out.capacity(),
                &raw mut used,
                &raw mut made,
            )
        };
        match result {
            SUCCESS => {
                // SAFETY: libdeflate initialised the first `made <= capacity` bytes.
                unsafe { out.set_len(made) };
                Member::Whole { used }
            }
            INSUFFICIENT_SPACE => Member::TooLarge,
            _ => Member::Unreadable,
        }
    }
}

impl Drop for Inflater {
    fn drop(&mut self) {
        // SAFETY: `state` came from this library's allocator and is freed once.
        unsafe { (self.library.free)(self.state) };
    }
}

// SAFETY: a decompressor's state is used by one thread at a time (`&mut self`); libdeflate
// keeps no thread-local state.
unsafe impl Send for Inflater {}
