//! numpy `.npy` files, including the ones ml_dtypes writes.
//!
//! Standard dtypes map to formats directly (`<f8 <f4 <f2 |i1 <i2 <i4 <i8 |u1 <u2 <u4`), in
//! either byte order: big-endian files (`>f4`, `>i2`, ...) are swapped to little-endian
//! elements as they are read. ml_dtypes 0.6.0 (with numpy 2.x) saves its narrow types under
//! dtypes that do not say which format they hold: `bfloat16` as `<V2`; `float8_e4m3fn`,
//! `float8_e8m0fnu`, `float4_e2m1fn`, `int4` (and the other 8/4-bit types) as `<V1`; and
//! `float8_e5m2` as `<f1`, a descr numpy itself refuses to load. Such files need the caller to
//! name the format ([`crate::CastJob::from`]).
//!
//! npusim writes little-endian files, and narrow formats the way ml_dtypes does, so that
//! `np.load(path).view(ml_dtypes.X)` gives the values: `bf16` as `<V2`, every 8-bit narrow
//! float and every 4-bit format (one element per byte, low nibble) as `<V1`, except that
//! `f8e5m2` is written as `<V1` too (not `<f1`) so that numpy can load it. Packed, a 4-bit
//! array is written as a `|u1` array whose last dimension is `ceil(d / 2)`: each row of `d`
//! elements packed two per byte, element 0 in the low nibble.

mod bounds;
mod dtype;
mod header;
mod read;
mod write;

pub use bounds::{MAX_HEADER_BYTES, MAX_HEADER_DEPTH, check_header_len, check_header_text};
pub use dtype::{NpyDtype, descr_for};
pub use header::{NpyArray, NpyHead, PREAMBLE_BYTES, header_end, parse, parse_head};
pub use read::{
    element_format, elements, file_sub_byte, head_format, logical_shape, swap_in_place,
};
pub(crate) use write::file_shape;
pub use write::{header_bytes, write};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::elements::Elements;
    use npusim_numerics::{Format, Storage};

    #[test]
    fn written_files_parse_back() {
        let data = [0x80u8, 0x3f, 0x00, 0x40];
        let e = Elements {
            storage: Storage::native(Format::BF16),
            count: 2,
            bytes: data[..].into(),
        };
        let mut out = Vec::new();
        write(&mut out, &e, &[2], false, false).unwrap();
        let a = parse(&out).unwrap();
        assert_eq!(a.descr, "<V2");
        assert_eq!(a.shape, [2]);
        assert_eq!(a.data, data);
        assert!(element_format(&a, None).is_err());
        assert_eq!(
            element_format(&a, Some(Format::BF16)).unwrap(),
            Format::BF16
        );
        assert!(element_format(&a, Some(Format::F32)).is_err());
    }
}
