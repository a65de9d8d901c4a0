//! What the table-kernel tests share (`kernels_table_avx512`, `kernels_table_avx2`): the
//! sources of at most 8 bits and every destination, bytes that hold every code, a cast into
//! an offset destination, and the check that a level equals the reference routine.

use crate::kernel_support::{layouts, options};

use npusim_numerics::bulk::SimdLevel;
use npusim_numerics::{
    BulkOptions, CastPolicy, Format, KernelChoice, StatusCounts, Storage, cast_elements_with_status,
};

/// Every storage of every source format of at most 8 bits.
pub fn small_sources() -> Vec<Storage> {
    let v: Vec<Storage> = Format::ALL
        .into_iter()
        .filter(|f| f.bits() <= 8)
        .flat_map(layouts)
        .collect();
    assert!(v.len() >= 20, "{v:?}");
    v
}

/// Every storage of every format.
pub fn all_destinations() -> Vec<Storage> {
    Format::ALL.into_iter().flat_map(layouts).collect()
}

/// Every byte value (all codes, with stray high bits of one-per-byte sub-byte codes; all
/// nibble and crumb combinations of packed ones), then pseudo-random bytes, then every byte
/// value again in reverse: 575 bytes.
pub fn source_bytes(seed: u64) -> Vec<u8> {
    let mut v: Vec<u8> = (0..=255u8).collect();
    let mut x = seed | 1;
    for _ in 0..63 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v.push((x >> 23) as u8);
    }
    v.extend((0..=255u8).rev());
    v
}

/// Source bytes for `n` elements of `s`: [`source_bytes`]`(seed)` repeated, cut to length.
pub fn repeated_source(s: Storage, n: usize, seed: u64) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(s.bytes_for(n));
    while bytes.len() < s.bytes_for(n) {
        bytes.extend(source_bytes(seed));
    }
    bytes.truncate(s.bytes_for(n));
    bytes
}

/// Casts `n` elements of `src` into a destination that starts `dst_offset` bytes into a
/// buffer prefilled with a marker, and returns the destination bytes and the counts.
pub fn cast_at(
    src: &[u8],
    s: Storage,
    d: Storage,
    n: usize,
    dst_offset: usize,
    policy: &CastPolicy,
    options: &BulkOptions,
) -> (Vec<u8>, StatusCounts) {
    let mut buf = vec![0x5Au8; dst_offset + d.bytes_for(n)];
    let counts = cast_elements_with_status(
        &src[..s.bytes_for(n)],
        s,
        &mut buf[dst_offset..],
        d,
        n,
        policy,
        options,
    )
    .expect("buffers are sized for n");
    buf.drain(..dst_offset);
    (buf, counts)
}

/// The kernels at `level` (or the best level below it the machine has) equal the reference
/// for `n` elements of `src` (destination at `dst_offset`); on a difference, names the first
/// differing element.
pub fn assert_level_equals_reference(
    level: SimdLevel,
    src: &[u8],
    s: Storage,
    d: Storage,
    n: usize,
    dst_offset: usize,
    policy: &CastPolicy,
) {
    let reference = options(KernelChoice::Reference, false);
    let at_level = options(KernelChoice::Level(level), false);
    let want = cast_at(src, s, d, n, dst_offset, policy, &reference);
    let got = cast_at(src, s, d, n, dst_offset, policy, &at_level);
    if got == want {
        return;
    }
    for i in 0..n {
        assert_eq!(
            d.read(&got.0, i),
            d.read(&want.0, i),
            "{s:?} code {:#x} (element {i} of {n}) -> {d:?} {policy:?} at {level:?}",
            s.read(src, i)
        );
    }
    assert_eq!(
        got.0, want.0,
        "padding bits, {s:?} -> {d:?} {policy:?} n {n}"
    );
    assert_eq!(
        got.1, want.1,
        "status counts, {s:?} -> {d:?} {policy:?} n {n}"
    );
}
