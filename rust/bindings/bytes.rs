//! Tables handed to Python as little-endian bytes, for `numpy.frombuffer(..., "<u4")` and the
//! like: the one writer every binding uses, so the byte order is decided in one place.

use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// A fixed-size number with a little-endian encoding.
pub(crate) trait LittleEndian: Copy {
    /// Bytes per value.
    const SIZE: usize;
    /// Write the value's little-endian bytes into `out` (`SIZE` bytes).
    fn write_le(self, out: &mut [u8]);
}

macro_rules! little_endian {
    ($($t:ty),*) => {$(
        impl LittleEndian for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            #[inline]
            fn write_le(self, out: &mut [u8]) {
                out.copy_from_slice(&self.to_le_bytes());
            }
        }
    )*};
}

little_endian!(u8, i16, u32, u64, i64, f64);

/// Fill `buf` (exactly `values.len() * T::SIZE` bytes) with the values' encodings in order.
fn fill<T: LittleEndian>(buf: &mut [u8], values: &[T]) {
    for (chunk, &v) in buf.chunks_exact_mut(T::SIZE).zip(values) {
        v.write_le(chunk);
    }
}

/// The values as an immutable `bytes`, written in place (no intermediate copy).
pub(crate) fn le_bytes<'py, T: LittleEndian>(py: Python<'py>, values: &[T]) -> Bound<'py, PyBytes> {
    PyBytes::new_bound_with(py, values.len() * T::SIZE, |buf| {
        fill(buf, values);
        Ok(())
    })
    .expect("writing into a fresh bytes object cannot fail")
}
