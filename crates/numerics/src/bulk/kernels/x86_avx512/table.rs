//! The table lookup at the AVX-512 level for sources of at most 8 bits: the results held as
//! byte planes ([`Planes`]) in registers and looked up 64 codes at a time by VBMI byte
//! permutes, the statuses counted per class. The method is in `docs/kernels.md`.

use crate::bulk::Storage;
use crate::bulk::kernels::table::planes::{CODES, Cube, MAX_BYTES, MAX_MARKS, Planes};
use crate::status::StatusCounts;
use std::arch::x86_64::{
    __m512i, _mm_mask_storeu_epi8, _mm_maskz_loadu_epi8, _mm256_mask_storeu_epi8,
    _mm256_maskz_loadu_epi8, _mm512_and_si512, _mm512_cmpeq_epi8_mask, _mm512_cvtepi16_epi8,
    _mm512_cvtepi32_epi8, _mm512_cvtepu8_epi16, _mm512_cvtepu8_epi32, _mm512_loadu_si512,
    _mm512_madd_epi16, _mm512_maddubs_epi16, _mm512_mask_blend_epi8, _mm512_mask_storeu_epi8,
    _mm512_mask_sub_epi8, _mm512_mask_test_epi8_mask, _mm512_maskz_loadu_epi8,
    _mm512_maskz_mov_epi8, _mm512_maskz_permutex2var_epi8, _mm512_movepi8_mask, _mm512_movm_epi8,
    _mm512_or_si512, _mm512_permutex2var_epi8, _mm512_permutexvar_epi8, _mm512_reduce_add_epi64,
    _mm512_sad_epu8, _mm512_set1_epi8, _mm512_set1_epi16, _mm512_set1_epi32, _mm512_setzero_si512,
    _mm512_slli_epi16, _mm512_slli_epi32, _mm512_stream_si512, _mm512_ternarylogic_epi32,
};

/// Steps of 64 codes whose classes one byte counter holds: at most one per step.
const COUNTED_STEPS: usize = 255;

impl Planes {
    /// Casts `n` elements of `src` (storage `s`: one code per byte, or packed two or four per
    /// byte) into `dst` (storage `d`) by the byte planes; `None` when the machine lacks the
    /// AVX-512 level (or POPCNT), a buffer is short, or [`Planes::serves`] does not hold.
    /// With `stream`, `dst` starts on a 64-byte boundary and one-per-element codes are stored
    /// non-temporally.
    pub(crate) fn run(
        &self,
        src: &[u8],
        s: Storage,
        dst: &mut [u8],
        d: Storage,
        n: usize,
        stream: bool,
    ) -> Option<StatusCounts> {
        let spb = s.per_byte();
        let one_byte = s.is_packed() || s.format().unpacked_bytes() == 1;
        if !self.serves(d) || !one_byte || !matches!(spb, 1 | 2 | 4) {
            return None;
        }
        if src.len() < s.bytes_for(n) || dst.len() < d.bytes_for(n) {
            return None;
        }
        if crate::bulk::kernels::simd::avx512_present()
            && std::arch::is_x86_feature_detected!("popcnt")
        {
            let (db, dpb) = if d.is_packed() {
                (0, d.per_byte())
            } else {
                (self.code.len(), 1)
            };
            macro_rules! to {
                ($spb:literal, $wide:literal, $src:ident, $dst:ident, $n:ident, $stream:ident) => {
                    // SAFETY: the CPU has every feature `cast` enables (checked above); the
                    // buffers hold the bytes of `n` elements in their storages (checked above,
                    // and split at element boundaries); a streamed destination is 64-byte
                    // aligned (`stream::split` casts the head before it).
                    unsafe {
                        match (db, dpb) {
                            (1, 1) => cast::<$spb, $wide, 1, 1>(self, $src, $dst, $n, $stream),
                            (2, 1) => cast::<$spb, $wide, 2, 1>(self, $src, $dst, $n, $stream),
                            (4, 1) => cast::<$spb, $wide, 4, 1>(self, $src, $dst, $n, $stream),
                            (8, 1) => cast::<$spb, $wide, 8, 1>(self, $src, $dst, $n, $stream),
                            (_, 2) => cast::<$spb, $wide, 0, 2>(self, $src, $dst, $n, $stream),
                            _ => cast::<$spb, $wide, 0, 4>(self, $src, $dst, $n, $stream),
                        }
                    }
                };
            }
            let counts = match (spb, self.wide) {
                (1, true) => to!(1, true, src, dst, n, stream),
                (1, false) => to!(1, false, src, dst, n, stream),
                (2, _) => to!(2, false, src, dst, n, stream),
                _ => to!(4, false, src, dst, n, stream),
            };
            return Some(counts);
        }
        None
    }
}

/// The low `k` bits set (all 64 from `k = 64` on).
#[inline(always)]
fn first(k: usize) -> u64 {
    if k >= 64 { !0 } else { (1u64 << k) - 1 }
}

/// The `vpermt2b` indices that zip elements of `w` bytes from two vectors (`x` below 64,
/// `y` from 64): half `h` of the pairs, `x[e], y[e]` for the `32 / w` elements `e` of that
/// half in turn.
const fn zip_index(w: usize, h: usize) -> [u8; 64] {
    let mut t = [0u8; 64];
    let mut j = 0;
    while j < 64 {
        let e = h * (32 / w) + j / (2 * w);
        let which = (j / w) % 2;
        t[j] = (e * w + j % w + 64 * which) as u8;
        j += 1;
    }
    t
}

/// The `vpermt2b` indices that build output vector `q` of 4-byte codes from a pair of byte
/// planes (`x` below 64, `y` from 64): byte `4j + b` takes element `16q + j` of `x` (`b`
/// even) or of `y` (`b` odd), so one pair fills bytes 0 and 1 of each code and the other,
/// under a byte mask, bytes 2 and 3.
const fn quad_index(q: usize) -> [u8; 64] {
    let mut t = [0u8; 64];
    let mut j = 0;
    while j < 64 {
        t[j] = (16 * q + j / 4 + 64 * (j % 2)) as u8;
        j += 1;
    }
    t
}

/// [`quad_index`] for the four output vectors of a step.
const QUADS: [[u8; 64]; 4] = [quad_index(0), quad_index(1), quad_index(2), quad_index(3)];

/// [`zip_index`] for widths 1, 2 and 4, both halves.
const ZIPS: [[[u8; 64]; 2]; 3] = [
    [zip_index(1, 0), zip_index(1, 1)],
    [zip_index(2, 0), zip_index(2, 1)],
    [zip_index(4, 0), zip_index(4, 1)],
];

/// The 64 source codes from element `i` on (the first `rem` of them, at most 64; the rest
/// zero), one per byte in element order: loaded from one code per byte, or spread out of
/// packed 4-bit (`SPB` 2) or 2-bit (`SPB` 4) codes.
///
/// # Safety
/// The CPU must support AVX-512 F, BW and VL; `src` must hold the bytes of elements
/// `i..i + rem`.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,popcnt")]
#[inline]
unsafe fn indices<const SPB: usize>(src: &[u8], i: usize, rem: usize) -> __m512i {
    let sp = src.as_ptr();
    let valid = first(rem);
    match SPB {
        // SAFETY: the `rem` source bytes from element i (masked).
        1 => unsafe { _mm512_maskz_loadu_epi8(valid, sp.add(i).cast()) },
        2 => {
            // SAFETY: the bytes of the `rem` packed source codes from element i (masked).
            let b = unsafe {
                _mm256_maskz_loadu_epi8(first(rem.div_ceil(2)) as u32, sp.add(i / 2).cast())
            };
            let w = _mm512_cvtepu8_epi16(b);
            _mm512_or_si512(
                _mm512_and_si512(w, _mm512_set1_epi16(0x0F)),
                _mm512_and_si512(_mm512_slli_epi16::<4>(w), _mm512_set1_epi16(0x0F00)),
            )
        }
        _ => {
            // SAFETY: the bytes of the `rem` packed source codes from element i (masked).
            let b = unsafe {
                _mm_maskz_loadu_epi8(first(rem.div_ceil(4)) as u16, sp.add(i / 4).cast())
            };
            let w = _mm512_cvtepu8_epi32(b);
            let part = |v: __m512i, m: i32| _mm512_and_si512(v, _mm512_set1_epi32(m));
            _mm512_or_si512(
                _mm512_or_si512(part(w, 0x3), part(_mm512_slli_epi32::<6>(w), 0x300)),
                _mm512_or_si512(
                    part(_mm512_slli_epi32::<12>(w), 0x3_0000),
                    part(_mm512_slli_epi32::<18>(w), 0x300_0000),
                ),
            )
        }
    }
}

/// Stores the codes `c` (one per byte, zero past element `rem`) of elements `i..i + rem`
/// packed `DPB` to a byte (2: 4-bit, 4: 2-bit; the first in the low bits).
///
/// # Safety
/// The CPU must support AVX-512 F, BW and VL; `dp` must be valid for writes of the bytes of
/// packed elements `i..i + rem`.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,popcnt")]
#[inline]
unsafe fn store_packed<const DPB: usize>(c: __m512i, dp: *mut u8, i: usize, rem: usize) {
    if DPB == 2 {
        let c = _mm512_and_si512(c, _mm512_set1_epi8(0x0F));
        let w = _mm512_maddubs_epi16(c, _mm512_set1_epi16(0x1001));
        let packed = _mm512_cvtepi16_epi8(w);
        let m = first(rem.div_ceil(2)) as u32;
        // SAFETY: the bytes of packed elements i..i + rem only (masked).
        unsafe { _mm256_mask_storeu_epi8(dp.add(i / 2).cast(), m, packed) };
    } else {
        let c = _mm512_and_si512(c, _mm512_set1_epi8(0x03));
        let w = _mm512_maddubs_epi16(c, _mm512_set1_epi16(0x0401));
        let d = _mm512_madd_epi16(w, _mm512_set1_epi32(0x0010_0001));
        let packed = _mm512_cvtepi32_epi8(d);
        let m = first(rem.div_ceil(4)) as u16;
        // SAFETY: the bytes of packed elements i..i + rem only (masked).
        unsafe { _mm_mask_storeu_epi8(dp.add(i / 4).cast(), m, packed) };
    }
}

/// The AVX-512 loop of [`Planes::run`]: sources of `SPB` codes per byte (`WIDE`: more than 6
/// bits), destinations of `DB` bytes per code (`DPB` 1), or packed `DPB` codes per byte;
/// `stream`: full steps of a one-per-element destination are stored non-temporally.
///
/// # Safety
/// The CPU must support AVX-512 F, BW, VL, VBMI and POPCNT; `src` must hold the bytes of `n`
/// source elements and `dst` those of `n` destination elements; with `stream`, `dst` must be
/// 64-byte aligned.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,popcnt")]
unsafe fn cast<const SPB: usize, const WIDE: bool, const DB: usize, const DPB: usize>(
    p: &Planes,
    src: &[u8],
    dst: &mut [u8],
    n: usize,
    stream: bool,
) -> StatusCounts {
    // The unsafe blocks below are loads and stores: of the 256 bytes of a plane, of a 64-byte
    // index constant, of at most the source bytes left (masked), and of at most the
    // destination bytes left (masked); the caller guarantees the buffer sizes, and the CPU
    // features are enabled on this function.
    let load = |plane: &[u8; CODES]| -> [__m512i; 4] {
        // SAFETY: bytes 64q..64q+64 of the 256-byte plane, q < 4.
        std::array::from_fn(|q| unsafe { _mm512_loadu_si512(plane.as_ptr().add(64 * q).cast()) })
    };
    let zero = _mm512_setzero_si512();
    let planes = if DPB > 1 { 1 } else { DB };
    let mut code = [[zero; 4]; MAX_BYTES];
    for (t, plane) in code.iter_mut().zip(p.code.iter()).take(planes) {
        *t = load(plane);
    }
    let mut marks = [[zero; 4]; 2];
    for (t, plane) in marks.iter_mut().zip(p.marks.iter()) {
        *t = load(plane);
    }
    let bits: [__m512i; 8] = std::array::from_fn(|b| _mm512_set1_epi8(1 << b));
    let zips: [[__m512i; 2]; 3] = std::array::from_fn(|w| {
        // SAFETY: the 64 bytes of one index constant.
        std::array::from_fn(|h| unsafe { _mm512_loadu_si512(ZIPS[w][h].as_ptr().cast()) })
    });
    // SAFETY: the 64 bytes of one index constant.
    let quads: [__m512i; 4] =
        std::array::from_fn(|q| unsafe { _mm512_loadu_si512(QUADS[q].as_ptr().cast()) });
    // Planes that are zero for every source code (the low half of fp8 → f32 codes, say) are
    // neither looked up nor, for 4-byte codes, zipped.
    let live = p.live;
    let low_pair = live[0] || live[1];
    let high_pair = live[2] || live[3];
    let classes = p.classes.len();
    let mark_planes = p.marks.len();
    let mut seen = [0u64; MAX_MARKS];

    let look = look::<WIDE>;
    // Counts the classes of the valid elements of one step.
    let count = |idx: __m512i, top: u64, valid: u64, seen: &mut [u64; MAX_MARKS]| {
        if classes > 0 {
            let mut mv = [zero; 2];
            for (x, t) in mv.iter_mut().zip(marks.iter()).take(mark_planes) {
                *x = look(t, idx, top);
            }
            for (j, s) in seen.iter_mut().enumerate().take(classes) {
                let hit = _mm512_mask_test_epi8_mask(valid, mv[j / 8], bits[j % 8]);
                *s += u64::from(hit.count_ones());
            }
        }
    };

    // One code per byte with few status classes: each class counted by byte compares of the
    // source codes, a block of steps at a time (see `count_cubes`), not by its mark plane.
    let cubes = p.cubes.as_deref().filter(|_| SPB == 1 && classes > 0);
    // Sign-symmetric planes of 8-bit codes: one `vpermt2b` (which reads index bits 0-6) and
    // the plane's flip where bit 7 is set, instead of two and a blend.
    let signed = WIDE && p.sign_flip.is_some();
    let flips: [__m512i; MAX_BYTES] =
        std::array::from_fn(|k| _mm512_set1_epi8(p.sign_flip.map_or(0, |f| f[k]) as i8));
    let flipped: [bool; MAX_BYTES] =
        std::array::from_fn(|k| p.sign_flip.is_some_and(|f| f[k] != 0));

    let dp = dst.as_mut_ptr();
    let mut i = 0;
    while i < n {
        let start = i;
        let end = if cubes.is_some() {
            n.min(i + 64 * COUNTED_STEPS)
        } else {
            n
        };
        while i < end {
            let rem = (end - i).min(64);
            let valid = first(rem);
            // SAFETY: the caller's guarantees on `src`; i < n.
            let idx = unsafe { indices::<SPB>(src, i, rem) };
            let top = if WIDE { _mm512_movepi8_mask(idx) } else { 0 };
            if DPB == 1 {
                let mut v = [zero; MAX_BYTES];
                if signed {
                    let neg = _mm512_movm_epi8(top);
                    for k in 0..DB {
                        if live[k] {
                            let x = _mm512_permutex2var_epi8(code[k][0], idx, code[k][1]);
                            // x ^ (neg & flip): the flip where the code's sign bit is set
                            v[k] = if flipped[k] {
                                _mm512_ternarylogic_epi32::<0x78>(x, neg, flips[k])
                            } else {
                                x
                            };
                        }
                    }
                } else {
                    for ((x, t), &l) in v.iter_mut().zip(code.iter()).zip(&live).take(DB) {
                        if l {
                            *x = look(t, idx, top);
                        }
                    }
                }
                let out = interleave::<DB>(&v, (low_pair, high_pair), &zips, &quads);
                // SAFETY: the caller's guarantees on `dst` (64-byte aligned with `stream`);
                // i < n and i - start a multiple of 64 (start too, or nothing is streamed).
                unsafe { store_codes::<DB>(&out, dp, i, rem, stream) };
            } else {
                // Codes past the end are zero, so that an odd count leaves the padding zero.
                let c = _mm512_maskz_mov_epi8(valid, look(&code[0], idx, top));
                // SAFETY: the caller's guarantees on `dst`; i < n.
                unsafe { store_packed::<DPB>(c, dp, i, rem) };
            }
            if cubes.is_none() {
                count(idx, top, valid, &mut seen);
            }
            i += rem;
        }
        if let Some(cubes) = cubes {
            let whole = start + (end - start) / 64 * 64;
            count_cubes(&src[start..whole], cubes, &mut seen);
            p.count_by_cubes(cubes, &src[whole..end], &mut seen);
        }
    }
    p.counts(&seen, n)
}

/// Adds to `seen` the classes of the one-per-byte source codes `src` (a multiple of 64 bytes,
/// at most [`COUNTED_STEPS`] times 64), cube by cube: a byte compare of the masked codes per
/// 64, added into byte counters (one per step at most, so none wraps) and summed at the end.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,popcnt")]
fn count_cubes(src: &[u8], cubes: &[Cube], seen: &mut [u64; MAX_MARKS]) {
    let zero = _mm512_setzero_si512();
    let minus_one = _mm512_set1_epi8(-1);
    for cube in cubes {
        let (mask, value) = (
            _mm512_set1_epi8(cube.mask as i8),
            _mm512_set1_epi8(cube.value as i8),
        );
        let mut acc = zero;
        for x in src.chunks_exact(64) {
            // SAFETY: `x` is 64 readable bytes (an unaligned load).
            let b = unsafe { _mm512_loadu_si512(x.as_ptr().cast()) };
            let hit = _mm512_cmpeq_epi8_mask(_mm512_and_si512(b, mask), value);
            acc = _mm512_mask_sub_epi8(acc, hit, acc, minus_one);
        }
        let sum = _mm512_reduce_add_epi64(_mm512_sad_epu8(acc, zero));
        seen[cube.class] += sum as u64;
    }
}

/// The plane `t` looked up at the 64 indices `idx` (`top`: the indices from 128; `WIDE`:
/// indices of more than 6 bits).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,popcnt")]
#[inline]
fn look<const WIDE: bool>(t: &[__m512i; 4], idx: __m512i, top: u64) -> __m512i {
    if WIDE {
        let lo = _mm512_permutex2var_epi8(t[0], idx, t[1]);
        let hi = _mm512_permutex2var_epi8(t[2], idx, t[3]);
        _mm512_mask_blend_epi8(top, lo, hi)
    } else {
        _mm512_permutexvar_epi8(idx, t[0])
    }
}

/// Zips vectors of `w`-byte elements by the index pair `zips` (of [`ZIPS`]): `x[i]` with
/// `y[i]`, both halves, into `out[2i]` and `out[2i + 1]`.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,popcnt")]
#[inline]
fn zip(x: &[__m512i], y: &[__m512i], zips: [__m512i; 2], out: &mut [__m512i]) {
    for (i, (&a, &b)) in x.iter().zip(y).enumerate() {
        out[2 * i] = _mm512_permutex2var_epi8(a, zips[0], b);
        out[2 * i + 1] = _mm512_permutex2var_epi8(a, zips[1], b);
    }
}

/// The looked-up byte planes `v` of 64 codes interleaved into `DB`-byte codes, in order
/// (`DB` vectors); `pairs`: whether planes 0–1 and 2–3 hold any non-zero byte (4-byte codes
/// skip a zero pair); `zips` and `quads`: the index constants [`ZIPS`] and [`QUADS`].
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,popcnt")]
#[inline]
fn interleave<const DB: usize>(
    v: &[__m512i; MAX_BYTES],
    (low_pair, high_pair): (bool, bool),
    zips: &[[__m512i; 2]; 3],
    quads: &[__m512i; 4],
) -> [__m512i; MAX_BYTES] {
    let zero = _mm512_setzero_si512();
    let mut out = [zero; MAX_BYTES];
    match DB {
        1 => out[0] = v[0],
        2 => zip(&v[..1], &v[1..2], zips[0], &mut out[..2]),
        4 => {
            // bytes 0 and 1 of each code from planes 0 and 1, bytes 2 and 3 from 2 and 3
            const LOW: u64 = 0x3333_3333_3333_3333;
            for (o, &q) in out.iter_mut().zip(quads) {
                let low = if low_pair {
                    _mm512_maskz_permutex2var_epi8(LOW, v[0], q, v[1])
                } else {
                    zero
                };
                let high = if high_pair {
                    _mm512_maskz_permutex2var_epi8(!LOW, v[2], q, v[3])
                } else {
                    zero
                };
                *o = _mm512_or_si512(low, high);
            }
        }
        _ => {
            let mut a = [zero; 8];
            for q in 0..4 {
                zip(
                    &v[2 * q..2 * q + 1],
                    &v[2 * q + 1..2 * q + 2],
                    zips[0],
                    &mut a[2 * q..2 * q + 2],
                );
            }
            let mut b = [zero; 8];
            zip(&a[..2], &a[2..4], zips[1], &mut b[..4]);
            zip(&a[4..6], &a[6..], zips[1], &mut b[4..]);
            zip(&b[..4], &b[4..], zips[2], &mut out);
        }
    }
    out
}

/// Stores the `DB`-byte codes `out` of elements `i..i + rem` (`rem` at most 64) at `dp`:
/// non-temporally when `stream` and the step is full, else masked to the `rem` codes.
///
/// # Safety
/// The CPU must support AVX-512 F and BW; `dp` must be valid for writes of the bytes of
/// elements `i..i + rem`, and 64-byte aligned with `stream` (`i` a multiple of 64).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,popcnt")]
#[inline]
unsafe fn store_codes<const DB: usize>(
    out: &[__m512i; MAX_BYTES],
    dp: *mut u8,
    i: usize,
    rem: usize,
    stream: bool,
) {
    if stream && rem == 64 {
        for (q, &o) in out.iter().enumerate().take(DB) {
            // SAFETY: the 64 destination bytes at a 64-byte boundary (the caller aligns `dp`;
            // i is a multiple of 64) of elements i..i + 64.
            unsafe { _mm512_stream_si512(dp.add(i * DB + 64 * q).cast(), o) };
        }
        return;
    }
    let bytes = rem * DB;
    for (q, &o) in out.iter().enumerate().take(DB) {
        let m = first(bytes.saturating_sub(64 * q));
        // SAFETY: destination bytes of elements i..i + rem only (masked).
        unsafe { _mm512_mask_storeu_epi8(dp.add(i * DB + 64 * q).cast(), m, o) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bulk::Layout;
    use crate::format::Format;
    use crate::status::Status;

    /// The planes of made-up results with `statuses(c)` as the raw status of code `c`, run on
    /// every byte value and random ones (u8 → u32 codes, and u8 → packed u4), equal the
    /// results code by code and in the counts.
    fn check(statuses: impl Fn(usize) -> u16) {
        let result = |c: usize| {
            (
                (c as u64).wrapping_mul(0x9E37_79B9) & 0xFFFF_FFFF,
                statuses(c),
            )
        };
        let mut src: Vec<u8> = (0..=255u8).collect();
        src.extend((0..301u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8));
        let n = src.len() - 1;
        let s = Storage::native(Format::U8);
        let mut want = StatusCounts::default();
        for &b in &src[..n] {
            crate::bulk::kernels::flags::record_n(result(usize::from(b)).1, 1, &mut want);
        }
        for (dst, bytes) in [(Format::U32, 4), (Format::U4, 1)] {
            let d = Storage::new(dst, Layout::Packed).unwrap_or(Storage::native(dst));
            let Some(p) = Planes::new(8, bytes, result) else {
                panic!("planes");
            };
            let mut out = vec![0u8; d.bytes_for(n)];
            let Some(counts) = p.run(&src, s, &mut out, d, n, false) else {
                assert!(!crate::bulk::kernels::simd::level_here(
                    crate::bulk::kernels::simd::SimdLevel::Avx512
                ));
                return;
            };
            for (i, &b) in src[..n].iter().enumerate() {
                let code = result(usize::from(b)).0 & dst.code_mask();
                assert_eq!(d.read(&out, i), code, "{dst} element {i}");
            }
            assert_eq!(counts, want, "{dst}");
        }
    }

    /// 4-byte codes with byte planes that are zero for every code (not looked up, not
    /// zipped), in every pattern of live and dead planes, equal the results code by code.
    #[test]
    fn dead_planes_of_4_byte_codes_are_skipped_without_changing_a_code() {
        let src: Vec<u8> = (0..=255u8)
            .chain((0..77u8).map(|i| i.wrapping_mul(151)))
            .collect();
        let n = src.len();
        let (s, d) = (Storage::native(Format::U8), Storage::native(Format::U32));
        for live in 1..16u32 {
            // byte k of code c: a mix of c and k where plane k is live, else 0
            let code = |c: usize| -> u64 {
                (0..4)
                    .filter(|k| live & (1 << k) != 0)
                    .map(|k| (((c * 29 + 7 * k + 1) & 0xFF) as u64) << (8 * k))
                    .sum()
            };
            let Some(p) = Planes::new(8, 4, |c| (code(c), 0)) else {
                panic!("planes");
            };
            let mut out = vec![0xA5u8; d.bytes_for(n)];
            if p.run(&src, s, &mut out, d, n, false).is_none() {
                assert!(!crate::bulk::kernels::simd::level_here(
                    crate::bulk::kernels::simd::SimdLevel::Avx512
                ));
                return;
            }
            for (i, &b) in src.iter().enumerate() {
                assert_eq!(
                    d.read(&out, i),
                    code(usize::from(b)),
                    "live {live:04b} element {i}"
                );
            }
        }
    }

    #[test]
    fn few_distinct_statuses_are_counted_by_class() {
        check(|c| match c % 7 {
            0 => Status::INEXACT.bits(),
            1 => (Status::INEXACT | Status::SATURATED).bits(),
            2 => Status::NAN.bits(),
            _ => 0,
        });
    }

    #[test]
    fn many_distinct_statuses_are_counted_by_flag() {
        // Every 9-bit status pattern occurs: far more classes than planes hold.
        check(|c| ((c * 37) & 0x1FF) as u16);
        let p = Planes::new(8, 4, |c| (0, ((c * 37) & 0x1FF) as u16));
        assert!(p.is_some_and(|p| p.classes.len() == 10 && p.marks.len() == 2));
    }
}
