//! Element layouts between Python and the crates: Python arrays hold one sub-byte element per
//! byte (ml_dtypes), the vendor models take 4-bit elements packed two per byte. The relayout
//! is a same-format cast of npusim-numerics (a copy of the codes).

use npusim_numerics::{BulkOptions, CastPolicy, Format, Layout, Storage, cast_elements};

/// `count` elements of `f` from layout `from` to layout `to` (the bytes unchanged when both
/// layouts are the same storage).
pub fn relayout(
    bytes: &[u8],
    f: Format,
    from: Layout,
    to: Layout,
    count: usize,
) -> Result<Vec<u8>, String> {
    let storage = |l| {
        if f.per_packed_byte().is_some() {
            Storage::new(f, l).map_err(|e| e.to_string())
        } else {
            Ok(Storage::native(f))
        }
    };
    let (s, d) = (storage(from)?, storage(to)?);
    if s == d {
        return Ok(bytes.to_vec());
    }
    let mut out = vec![0u8; d.bytes_for(count)];
    cast_elements(
        bytes,
        s,
        &mut out,
        d,
        count,
        &CastPolicy::default(),
        &BulkOptions::default(),
    )
    .map_err(|e| e.to_string())?;
    Ok(out)
}
