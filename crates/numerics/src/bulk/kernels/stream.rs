//! Large outputs written past the cache: where a slice's streamed part starts ([`split`]),
//! and the non-temporal stores and source prefetches the kernels use in it. Why, and what it
//! measured, is in `docs/kernels.md`.

use crate::bulk::Storage;
use crate::bulk::kernels::simd::on_x86_64;
use crate::status::StatusCounts;

/// Destination bytes of one slice from which the output is streamed by default: 8 MiB.
/// Smaller outputs stay in the cache for what reads them next, and a cast repeated on the same
/// buffers of a few MiB (1 Mi elements: 5-6 MiB read and written) keeps running from the
/// last-level cache instead of writing to memory on every call (`docs/kernels.md`).
pub const STREAM_BYTES: usize = 8 << 20;

/// How far ahead of its loads a kernel prefetches the source.
pub(crate) const PREFETCH_AHEAD: usize = 4096;

/// How many leading elements of a cast of `n` elements into `dst` (storage `d`, source
/// storage `s`) are cast with plain stores so that the rest's destination starts on a
/// 64-byte boundary; `None` when the output is smaller than `threshold` bytes, or when no
/// element boundary (of both buffers) falls on that boundary.
pub(crate) fn head(
    s: Storage,
    d: Storage,
    dst: &[u8],
    n: usize,
    threshold: usize,
) -> Option<usize> {
    if d.bytes_for(n) < threshold {
        return None;
    }
    let gap = (64 - dst.as_ptr() as usize % 64) % 64;
    let h = if d.is_packed() {
        gap * d.per_byte()
    } else {
        let b = d.bytes_for(1);
        if !gap.is_multiple_of(b) {
            return None;
        }
        gap / b
    };
    (h <= n && h.is_multiple_of(s.per_byte())).then_some(h)
}

/// Runs `cast(src, dst, n, stream)` over a slice: whole with `stream` false when [`head`]
/// finds no streamed part, else the head with `stream` false and the rest (its destination
/// 64-byte aligned) with `stream` true, followed by a store fence so that the streamed stores
/// are ordered before whatever the caller does next.
pub(crate) fn split(
    s: Storage,
    d: Storage,
    src: &[u8],
    dst: &mut [u8],
    n: usize,
    threshold: usize,
    mut cast: impl FnMut(&[u8], &mut [u8], usize, bool) -> StatusCounts,
) -> StatusCounts {
    let Some(h) = head(s, d, dst, n, threshold) else {
        return cast(src, dst, n, false);
    };
    let (x, y) = src.split_at(s.bytes_for(h));
    let (u, v) = dst.split_at_mut(d.bytes_for(h));
    let mut counts = cast(x, u, h, false);
    counts.add(&cast(y, v, n - h, true));
    fence();
    counts
}

/// Orders the streamed stores before later ones (`sfence`; nothing off x86_64).
pub(crate) fn fence() {
    on_x86_64!(
        // SAFETY: SSE is part of the x86_64 baseline.
        unsafe { std::arch::x86_64::_mm_sfence() },
        ()
    )
}

/// Asks for the source line [`PREFETCH_AHEAD`] bytes after `p` to be brought into the L2
/// (nothing off x86_64). Never faults, whatever the address (the pointer is only formed,
/// never read through).
#[inline(always)]
pub(crate) fn prefetch(p: *const u8) {
    on_x86_64!(
        {
            use std::arch::x86_64::{_MM_HINT_T1, _mm_prefetch};
            // SAFETY: a prefetch is a hint: it reads nothing architecturally and never faults.
            unsafe { _mm_prefetch::<_MM_HINT_T1>(p.wrapping_add(PREFETCH_AHEAD).cast()) }
        },
        {
            let _ = (p, PREFETCH_AHEAD);
        }
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Format;

    #[test]
    fn the_head_reaches_the_first_64_byte_boundary_at_an_element_boundary() {
        let buf = vec![0u8; 4096];
        let at = (64 - buf.as_ptr() as usize % 64) % 64;
        let f32s = Storage::native(Format::F32);
        let f16s = Storage::native(Format::F16);
        for off in 0..64 {
            let dst = &buf[off..];
            let gap = (at + 64 - off % 64) % 64;
            let h = head(f32s, f16s, dst, 1000, 0);
            assert_eq!(h, gap.is_multiple_of(2).then_some(gap / 2), "offset {off}");
            if let Some(h) = h {
                assert_eq!((dst.as_ptr() as usize + 2 * h) % 64, 0);
            }
        }
        // Below the threshold, or a head longer than the slice: nothing streamed.
        assert_eq!(head(f32s, f16s, &buf, 1000, 2001), None);
        assert_eq!(head(f32s, f16s, &buf[at + 2..], 10, 0), None);
        assert_eq!(head(f32s, f16s, &buf[at..], 10, 0), Some(0));
    }

    #[test]
    fn a_packed_head_keeps_both_buffers_on_byte_boundaries() {
        let buf = vec![0u8; 4096];
        let at = (64 - buf.as_ptr() as usize % 64) % 64;
        let e2m1 = Storage::native(Format::F4E2M1);
        let f32s = Storage::native(Format::F32);
        assert_eq!(head(f32s, e2m1, &buf[at + 63..], 1000, 0), Some(2));
        // A packed source with an odd head cannot split on a source byte.
        let i4 = Storage::native(Format::I4);
        let f16s = Storage::native(Format::F16);
        assert_eq!(head(i4, f16s, &buf[at + 2..], 1000, 0), None);
        assert_eq!(head(i4, f16s, &buf[at + 4..], 1000, 0), Some(30));
    }
}
