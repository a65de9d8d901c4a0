//! The step loop of the AVX-512 kernels that cast f32 to one-byte codes by a per-lane formula
//! ([`super::f32_e8m0_avx512`], [`super::f32_hif8_avx512`]), and their construction-time check
//! against the [`super::f32_key`] table.
//!
//! Method. A kernel supplies a lane function: for 16 f32 codes, the codes (in the low byte of
//! each dword), `C` status-class masks, and a mask of the rare lanes the formula does not
//! cover. Per 64-element step the loop prefetches the source ([`super::stream::prefetch`],
//! one line per 64 bytes), loads four vectors and applies the lane function. A step with a
//! rare lane is cast by the key table (the reference's results) instead; otherwise each class's
//! four masks are joined into one 64-bit mask and counted by `popcnt`, and the 64 codes are
//! gathered into one vector by two `vpermt2b` and stored (non-temporally with `stream`). The
//! last `n % 64` elements go to the table too. The kernel turns the per-class counts into
//! statuses ([`ClassStatus`]).
//!
//! Exactness. A lane function may read an f32 only through its top 16 bits and comparisons or
//! rounding adds whose thresholds are multiples of 2^16 (give or take one), so that its
//! result is a function of the f32's key (top 16 bits, and whether any low bit is set), as the
//! table's is. [`check`] then compares the lane function with the table on every key (with
//! three low-bit patterns each), lane by lane: code, status class and the rare mask, and the
//! whole loop on all keys in order (codes and counts). A kernel that fails is never used.

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

use super::drive::F32Element;
use super::f32_key::KeyTable;
use crate::status::{Status, StatusCounts};

/// Elements per step (four vectors of 16).
pub(crate) const STEP: usize = 64;

/// The output of a lane function on 16 f32 codes.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
pub(crate) struct Lanes<const C: usize> {
    /// The codes, in the low byte of each dword (the other bytes are ignored).
    pub(crate) codes: __m512i,
    /// Per status class, the lanes in it (the kernel's [`ClassStatus`] says what they mean).
    pub(crate) classes: [__mmask16; C],
    /// Lanes the formula does not cover: their step is cast by the table.
    pub(crate) rare: __mmask16,
}

/// How a kernel's class masks map to statuses: per lane, and for a whole count.
pub(crate) trait ClassStatus<const C: usize> {
    /// The raw status of a lane whose class-mask membership is `member`.
    fn lane_status(&self, member: [bool; C]) -> u16;
    /// The counts of `total` formula-cast lanes whose class masks held `popcounts` lanes.
    fn counts(&self, total: u64, popcounts: [u64; C]) -> StatusCounts;
}

/// Counts `n` results of raw status `s`.
pub(crate) fn record_n(counts: &mut StatusCounts, s: u16, n: u64) {
    counts.total += n;
    if s & (Status::INEXACT | Status::INVALID).bits() == 0 {
        counts.exact += n;
    }
    for (j, (flag, _)) in Status::NAMED.iter().enumerate() {
        if s & flag.bits() != 0 {
            counts.flags[j] += n;
        }
    }
}

/// `popcnt` in assembly: the compiler would turn several `count_ones` into a far slower
/// vector nibble-table count.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn popcount(m: u64) -> u64 {
    let r: u64;
    // SAFETY: `popcnt` reads and writes only the two registers named; every caller checked
    // that the CPU has POPCNT before entering its AVX-512 code.
    unsafe {
        std::arch::asm!("popcnt {r}, {m}", m = in(reg) m, r = lateout(reg) r,
            options(pure, nomem, nostack))
    };
    r
}

/// Casts `n` little-endian f32 codes of `src` into one byte each in `dst` by `lanes` (and by
/// `table` for steps with a rare lane and for the last `n % 64`); with `stream` the 64-byte
/// blocks are stored non-temporally. Returns the counts of the table-cast elements, the
/// number of formula-cast ones, and their per-class mask popcounts.
///
/// # Safety
/// The CPU must support POPCNT and AVX-512 F, BW, VL, DQ and VBMI; `src` must hold `4 n`
/// bytes, `dst` `n`, and `dst` must start on a 64-byte boundary with `stream`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline]
pub(crate) unsafe fn drive<const C: usize>(
    table: &KeyTable,
    src: &[u8],
    dst: &mut [u8],
    n: usize,
    stream: bool,
    lanes: impl Fn(__m512i) -> Lanes<C>,
) -> (StatusCounts, u64, [u64; C]) {
    use super::stream::prefetch;
    let body = n / STEP * STEP;
    let mut counts = StatusCounts::default();
    let mut formula = 0u64;
    let mut classes = [0u64; C];
    // Byte j of `vpermt2b(a, idx, b)`: the low byte of dword j of a:b (j < 32; above, the
    // same bytes again, which the blend with the second pair replaces).
    let low_bytes: [u8; 64] = std::array::from_fn(|j| ((4 * j) & 127) as u8);
    // SAFETY: 64 bytes, the size of the unaligned load.
    let low_bytes = unsafe { _mm512_loadu_si512(low_bytes.as_ptr().cast()) };
    for (x, y) in src[..4 * body]
        .chunks_exact(4 * STEP)
        .zip(dst[..body].chunks_exact_mut(STEP))
    {
        let v: [Lanes<C>; 4] = std::array::from_fn(|i| {
            let p = x.as_ptr().wrapping_add(64 * i);
            prefetch(p);
            // SAFETY: `x` holds 256 bytes, so 64 from `64 i`.
            lanes(unsafe { _mm512_loadu_si512(p.cast()) })
        });
        if (v[0].rare | v[1].rare | v[2].rare | v[3].rare) != 0 {
            counts.add(&table.run(x, y, STEP, false));
            continue;
        }
        formula += STEP as u64;
        for (c, t) in classes.iter_mut().enumerate() {
            // the class's masks of the four vectors as one 64-bit mask, in mask registers
            let ab = _mm512_kunpackw(v[1].classes[c].into(), v[0].classes[c].into());
            let cd = _mm512_kunpackw(v[3].classes[c].into(), v[2].classes[c].into());
            *t += popcount(_mm512_kunpackd(cd.into(), ab.into()));
        }
        let ab = _mm512_permutex2var_epi8(v[0].codes, low_bytes, v[1].codes);
        let cd = _mm512_permutex2var_epi8(v[2].codes, low_bytes, v[3].codes);
        let z = _mm512_mask_blend_epi8(0xFFFF_FFFF_0000_0000, ab, cd);
        // SAFETY: `y` holds 64 bytes; with `stream` it starts on a 64-byte boundary (`dst`
        // does and every step is 64 bytes).
        unsafe {
            if stream {
                _mm512_stream_si512(y.as_mut_ptr().cast(), z);
            } else {
                _mm512_storeu_si512(y.as_mut_ptr().cast(), z);
            }
        }
    }
    counts.add(&table.run(&src[4 * body..4 * n], &mut dst[body..n], n - body, false));
    (counts, formula, classes)
}

/// The f32 codes whose key is `key` (top 16 bits, sticky) with low 16 bits 0 or 1, 0x8000
/// and 0xFFFF: one per key for `pattern` 0, three others for 1 to 3 (sticky keys only).
fn representative(key: u32, pattern: usize) -> u32 {
    let top = (key >> 1) << 16;
    match (key & 1, pattern) {
        (0, _) => top,
        (_, 0) => top | 1,
        (_, 1) => top | 0x8000,
        _ => top | 0xFFFF,
    }
}

/// Whether the lane function `lanes` and the step loop `run` (the kernel's cast of a slice,
/// `None` without the level) give the table's results: lane by lane on every key (code,
/// status class, or rare) with three low-bit patterns, then the whole loop on every key in
/// order (codes and counts).
#[cfg(target_arch = "x86_64")]
pub(crate) fn check<const C: usize>(
    table: &KeyTable,
    classes: &impl ClassStatus<C>,
    lanes: impl Fn(&[u32; 16]) -> Option<([u32; 16], [u16; C], u16)>,
    run: impl Fn(&[u8], &mut [u8], usize) -> Option<StatusCounts>,
) -> bool {
    const KEYS: u32 = 1 << 17;
    for pattern in 0..3 {
        for base in (0..KEYS).step_by(16) {
            let xs: [u32; 16] = std::array::from_fn(|i| representative(base + i as u32, pattern));
            let Some((codes, masks, rare)) = lanes(&xs) else {
                return false;
            };
            for (i, &x) in xs.iter().enumerate() {
                if rare >> i & 1 == 1 {
                    continue;
                }
                let (code, status) = table.apply(x);
                let member = masks.map(|m| m >> i & 1 == 1);
                if codes[i] & 0xFF != code || classes.lane_status(member) != status {
                    return false;
                }
            }
        }
    }
    let xs: Vec<u32> = (0..KEYS).map(|k| representative(k, 0)).collect();
    let src: Vec<u8> = xs.iter().flat_map(|x| x.to_le_bytes()).collect();
    let mut dst = vec![0u8; xs.len()];
    let Some(got) = run(&src, &mut dst, xs.len()) else {
        return false;
    };
    let mut want = StatusCounts::default();
    for (&x, &c) in xs.iter().zip(&dst) {
        let (code, s) = table.apply(x);
        if code != u32::from(c) {
            return false;
        }
        record_n(&mut want, s, 1);
    }
    got == want
}

/// The lane function's results on 16 codes, as arrays.
///
/// # Safety
/// The CPU must support POPCNT and AVX-512 F, BW, VL, DQ and VBMI.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline]
pub(crate) unsafe fn lanes_of<const C: usize>(
    xs: &[u32; 16],
    lanes: impl Fn(__m512i) -> Lanes<C>,
) -> ([u32; 16], [u16; C], u16) {
    // SAFETY: `xs` holds 16 dwords.
    let l = lanes(unsafe { _mm512_loadu_si512(xs.as_ptr().cast()) });
    let mut codes = [0u32; 16];
    // SAFETY: `codes` holds 16 dwords.
    unsafe { _mm512_storeu_si512(codes.as_mut_ptr().cast(), l.codes) };
    (codes, l.classes, l.rare)
}
