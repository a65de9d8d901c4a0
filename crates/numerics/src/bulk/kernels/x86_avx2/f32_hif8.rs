//! f32 → HiF8 to nearest even at the AVX2 level, by a float add: per 8 lanes the magnitude
//! `a` plus `m`, a power of two whose unit in the last place is the quantum of `a`'s binade
//! (the binade clamped at 2^-22, HiF8's smallest value; the mantissa width by `|e| / 4`, one
//! `vpermd`), rounds `a` at that quantum by the floating-point environment (Rust's default:
//! to nearest, ties to even; in the binades without mantissa bits, whose codes count the
//! binades, `m`'s last bit is set where the tie's lower code is the even one); `(a + m) − m` is the rounded value `r` and the bits of `a + m`
//! less those of `m` its number of quanta `q`. The code is then `prefix | (q & mask)` on the
//! packed bytes: the prefix of `r`'s binade (three `vpshufb` lookups of its exponent) and the
//! mask of its mantissa width (a `vpshufb` of the prefix's top nibble); a carry into the next
//! binade leaves `q` a power of two that the mask clears. Statuses are counted on bytes: the
//! zero codes, the exact lanes, the denormal codes (underflow where inexact), 255 steps
//! between two flushes of the byte counters. A step with a value above 2^15 (overflow, ±Inf,
//! NaN) takes the gathered key table ([`super::f32_key`]); the last `n % 32` elements the
//! per-element table. The kernel is checked against the table on every key when built.

use std::arch::x86_64::*;

use super::f32_small_float_scaled::{load_step, pack, sum64};
use crate::bulk::kernels::drive::{self, F32Element};
use crate::bulk::kernels::flags::{self, record_n};
use crate::bulk::kernels::mode;
use crate::bulk::kernels::table::f32_key::{KeyLoop, KeyTable};
use crate::encoding::hif8::{MAX_EXP, MIN_DENORMAL_EXP, mantissa_bits};
use crate::format::Format;
use crate::status::StatusCounts;

/// Elements per step (four vectors of 8).
const STEP: usize = 32;

/// The f32 bits of 2^-22, HiF8's smallest positive value: smaller magnitudes round at its
/// quantum.
const TINY: u32 = ((127 + MIN_DENORMAL_EXP) as u32) << 23;
/// The f32 bits of 2^15, the largest finite value: a step with a magnitude above it is rare.
const MAX: u32 = ((127 + MAX_EXP) as u32) << 23;
/// The f32 exponent field of 2^-22, the first binade of the prefix lookup.
const FIRST_FIELD: u32 = (127 + MIN_DENORMAL_EXP) as u32;

/// f32 → HiF8 to nearest even at the AVX2 level (any overflow policy: overflowing steps go to
/// the table).
#[derive(Debug, Clone, Copy)]
pub(crate) struct HiF8Avx2 {
    /// The prefix lookup in three `vpshufb` tables, combined by xor: table `k` answers the
    /// indices (exponent field less [`FIRST_FIELD`]) below `16 (k + 1)`.
    prefix: [[u8; 16]; 3],
    /// Per top nibble of a prefix (`prefix >> 3`): the mask of its mantissa bits.
    mask: [u8; 16],
    /// Per `|e| / 4` (e the binade, clamped at −22): the f32 exponent field that, added to
    /// `e`'s field, gives the power of two whose unit is the binade's quantum (`23 − width`),
    /// shifted to the field; in the binades without mantissa bits, bit 0 set (added where
    /// `e`'s field is even: ties to the even code).
    shift: [u32; 8],
    /// Raw statuses of the classes.
    exact: u16,
    inexact: u16,
    underflow: u16,
    flushed: u16,
    zero: u16,
}

/// The registers of the loop.
#[derive(Clone, Copy)]
struct Consts {
    abs: __m256i,
    exp: __m256i,
    tiny: __m256i,
    bias: __m256i,
    shift: __m256i,
    max: __m256i,
    t: [__m256i; 3],
    mask: __m256i,
    order: __m256i,
}

/// Class counts of the formula's lanes.
#[derive(Default)]
struct Classes {
    /// Zero codes (zero, or flushed to zero).
    zero: u64,
    /// Lanes whose rounded value equals the source magnitude (zero included).
    same: u64,
    /// Zero codes of inexact lanes.
    flushed: u64,
    /// Denormal codes of inexact lanes.
    under: u64,
    /// All.
    total: u64,
}

impl HiF8Avx2 {
    /// The kernel for `table` (f32 → HiF8 to nearest even) when the machine has AVX2 and the
    /// kernel reproduces the table on every key.
    pub(crate) fn new(table: &KeyTable) -> Option<HiF8Avx2> {
        if table.dst != Format::HiF8
            || mode::of(table.policy.round) != Some(mode::NEAREST_EVEN)
            || !crate::bulk::kernels::simd::avx2_present()
        {
            return None;
        }
        let at = |x: u32| table.apply(x);
        let mut want = [0u8; 48];
        for e in MIN_DENORMAL_EXP..=MAX_EXP {
            let field = (e + 127) as u32;
            want[(field - FIRST_FIELD) as usize] = at(field << 23).0 as u8;
        }
        let mut prefix = [[0u8; 16]; 3];
        for j in 0..16 {
            prefix[2][j] = want[32 + j];
            prefix[1][j] = want[16 + j] ^ want[32 + j];
            prefix[0][j] = want[j] ^ want[16 + j];
        }
        // each prefix's mask by its top nibble, and each binade's width by |e| / 4: one value
        // per slot, or no kernel
        let mut mask = [None::<u8>; 16];
        let mut shift = [None::<u32>; 8];
        for e in MIN_DENORMAL_EXP..=MAX_EXP {
            let w = mantissa_bits(e);
            let p = want[(e + 127) as usize - FIRST_FIELD as usize];
            let m = ((1u32 << w) - 1) as u8;
            let slot = &mut mask[usize::from(p >> 3) & 15];
            if p & m != 0 || slot.is_some_and(|s| s != m) {
                return None;
            }
            *slot = Some(m);
            let s = &mut shift[(e.unsigned_abs() / 4) as usize];
            // a binade without mantissa bits: its tie goes to the even code, up from an odd
            // one (the float add's way) and down from an even one: the unit bit of `m` set
            // (kept where the field is even), so that the add's even sum is one quantum up
            let v = (((23 - w) as u32) << 23) | u32::from(w == 0);
            if w == 0 && (p & 1 == 0) != (e % 2 != 0) {
                return None;
            }
            if s.is_some_and(|s| s != v) {
                return None;
            }
            *s = Some(v);
        }
        // the zero code (a zero rounded value: no binade) keeps no mantissa bits
        if mask[0].is_some_and(|m| m != 0) {
            return None;
        }
        let k = HiF8Avx2 {
            prefix,
            mask: mask.map(|m| m.unwrap_or(0)),
            shift: shift.map(|s| s.unwrap_or(23 << 23)),
            exact: at(0x3F80_0000).1,
            // 1 + 2^-23: rounds to 1
            inexact: at(0x3F80_0001).1,
            // 2^-20 × (1 + 2^-23)
            underflow: at(0x3580_0001).1,
            // 2^-30
            flushed: at(0x3080_0000).1,
            zero: at(0).1,
        };
        k.agrees_with(table).then_some(k)
    }

    /// Whether the kernel gives the table's code and status on every key
    /// ([`KeyTable::agrees_on_every_key`], one step of copies each).
    fn agrees_with(&self, table: &KeyTable) -> bool {
        table.agrees_on_every_key(STEP, |src, out| self.cast(table, src, out, STEP, false))
    }

    /// Casts `n` little-endian f32 codes into one byte each (streamed past the cache with
    /// `stream`, `dst` then on a 32-byte boundary); `None` without AVX2.
    fn cast(
        &self,
        table: &KeyTable,
        src: &[u8],
        dst: &mut [u8],
        n: usize,
        stream: bool,
    ) -> Option<StatusCounts> {
        if !crate::bulk::kernels::simd::avx2_present()
            || src.len() < 4 * n
            || dst.len() < n
            || table.entries().len() != 1 << 17
        {
            return None;
        }
        let done = n / STEP * STEP;
        let stream = stream && (dst.as_ptr() as usize).is_multiple_of(32);
        // SAFETY: the CPU has AVX2 (checked just above); `src` and `dst` hold `done` codes,
        // the table every key, and a streamed `dst` starts on a 32-byte boundary.
        let (x, y) = (&src[..4 * done], &mut dst[..done]);
        let (mut counts, c) = unsafe {
            if stream {
                self.body::<true>(table, x, y)
            } else {
                self.body::<false>(table, x, y)
            }
        };
        record_n(self.zero, c.zero - c.flushed, &mut counts);
        record_n(self.flushed, c.flushed, &mut counts);
        record_n(self.underflow, c.under, &mut counts);
        let changed = c.total - c.same;
        record_n(self.inexact, changed - c.flushed - c.under, &mut counts);
        record_n(self.exact, c.same - (c.zero - c.flushed), &mut counts);
        if n > done {
            let rest = drive::f32_to_codes::<u8>(
                &src[4 * done..4 * n],
                &mut dst[done..n],
                n - done,
                table,
            );
            counts.add(&rest);
        }
        Some(counts)
    }

    /// The registers of the loop.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn consts(&self) -> Consts {
        let t = |k: usize| {
            // SAFETY: each table is 16 bytes, the size of the unaligned load.
            let v = unsafe { _mm_loadu_si128(self.prefix[k].as_ptr().cast()) };
            _mm256_broadcastsi128_si256(v)
        };
        // SAFETY: 16 and 32 bytes, the sizes of the unaligned loads.
        let (mask, shift) = unsafe {
            (
                _mm256_broadcastsi128_si256(_mm_loadu_si128(self.mask.as_ptr().cast())),
                _mm256_loadu_si256(self.shift.as_ptr().cast()),
            )
        };
        Consts {
            abs: _mm256_set1_epi32(0x7FFF_FFFF),
            exp: _mm256_set1_epi32(0x7F80_0000),
            tiny: _mm256_set1_epi32(TINY as i32),
            bias: _mm256_set1_epi32(127 << 23),
            shift,
            max: _mm256_set1_epi32(MAX as i32),
            t: [t(0), t(1), t(2)],
            mask,
            order: _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7),
        }
    }

    /// The steps of 32 elements: codes stored (streamed with `STREAM`), classes counted; a
    /// step with a magnitude above 2^15 goes to the gathered table (its counts returned
    /// apart).
    ///
    /// # Safety
    /// The CPU must support AVX2; `src` must hold 4 bytes per byte of `dst`, a multiple of
    /// 32 of them; `table` every key; with `STREAM` `dst` must start on a 32-byte boundary.
    #[target_feature(enable = "avx2")]
    unsafe fn body<const STREAM: bool>(
        &self,
        table: &KeyTable,
        src: &[u8],
        dst: &mut [u8],
    ) -> (StatusCounts, Classes) {
        /// Steps between two flushes of the byte counters (at most 1 per byte per step).
        const FLUSH: usize = 255;
        let c = self.consts();
        let zero = _mm256_setzero_si256();
        let set8 = |v: u8| _mm256_set1_epi8(v as i8);
        let (b_first, b_sign, b_low) = (set8(FIRST_FIELD as u8), set8(0x80), set8(0x0F));
        let (b_i0, b_i1, b_i2) = (set8(0x70), set8(0x60), set8(0x50));
        let mut counts = StatusCounts::default();
        // the raw statuses of the rare steps, counted per block (`at` of them held)
        let mut st = [0u16; flags::BLOCK];
        let mut at = 0;
        let mut rare = 0u64;
        // 64-bit lane sums of the byte counters: zero codes, same, flushed, flushed or
        // underflowing
        let mut wide = [zero; 4];
        for (s_run, d_run) in src
            .chunks(4 * STEP * FLUSH)
            .zip(dst.chunks_mut(STEP * FLUSH))
        {
            let mut acc = [zero; 4];
            for (x, y) in s_run
                .chunks_exact(4 * STEP)
                .zip(d_run.chunks_exact_mut(STEP))
            {
                // SAFETY: `x` is one step's 128 source bytes.
                let xs = unsafe { load_step(x) };
                let a = xs.map(|x| _mm256_and_si256(x, c.abs));
                let big =
                    _mm256_max_epu32(_mm256_max_epu32(a[0], a[1]), _mm256_max_epu32(a[2], a[3]));
                let over = _mm256_cmpgt_epi32(big, c.max);
                if _mm256_testz_si256(over, over) == 0 {
                    // SAFETY: `x` is 128 bytes, `y` 32, `st` 32 entries; the table every key.
                    unsafe { super::f32_key::step(table.entries(), x, y, &mut st[at..at + STEP]) };
                    at += STEP;
                    if at == st.len() {
                        flags::count(&st, &mut counts);
                        at = 0;
                    }
                    rare += 1;
                    continue;
                }
                let l = a.map(|a| lanes(&c, a));
                let q = pack::<false>(l.map(|l| l.0));
                let e = pack::<false>(l.map(|l| l.1));
                let same = pack::<true>(l.map(|l| l.2));
                let sign = _mm256_and_si256(pack::<true>(xs), b_sign);
                // the prefix of the rounded value's binade (zero below 2^-22 and for zero)
                let i = _mm256_sub_epi8(e, b_first);
                let p = _mm256_xor_si256(
                    _mm256_xor_si256(
                        _mm256_shuffle_epi8(c.t[0], _mm256_adds_epu8(i, b_i0)),
                        _mm256_shuffle_epi8(c.t[1], _mm256_adds_epu8(i, b_i1)),
                    ),
                    _mm256_shuffle_epi8(c.t[2], _mm256_adds_epu8(i, b_i2)),
                );
                let m =
                    _mm256_shuffle_epi8(c.mask, _mm256_and_si256(_mm256_srli_epi16::<3>(p), b_low));
                let z = _mm256_cmpeq_epi8(e, zero);
                let code = _mm256_or_si256(
                    _mm256_or_si256(p, _mm256_and_si256(q, m)),
                    _mm256_andnot_si256(z, sign),
                );
                // a code below 8 (mask 0): zero or denormal
                let small = _mm256_cmpeq_epi8(m, zero);
                acc[0] = _mm256_sub_epi8(acc[0], z);
                acc[1] = _mm256_sub_epi8(acc[1], same);
                acc[2] = _mm256_sub_epi8(acc[2], _mm256_andnot_si256(same, z));
                acc[3] = _mm256_sub_epi8(acc[3], _mm256_andnot_si256(same, small));
                let out = _mm256_permutevar8x32_epi32(code, c.order);
                // SAFETY: `y` is 32 bytes, the size of the store, 32-byte aligned when
                // streamed (the caller's guarantee; steps are 32 bytes).
                unsafe {
                    if STREAM {
                        _mm256_stream_si256(y.as_mut_ptr().cast(), out)
                    } else {
                        _mm256_storeu_si256(y.as_mut_ptr().cast(), out)
                    }
                };
            }
            for (w, a) in wide.iter_mut().zip(acc) {
                *w = _mm256_add_epi64(*w, _mm256_sad_epu8(a, zero));
            }
        }
        flags::count(&st[..at], &mut counts);
        let [zeros, same, flushed, small] = wide.map(|w| sum64(w));
        let classes = Classes {
            zero: zeros,
            same,
            flushed,
            under: small - flushed,
            total: (dst.len() / STEP) as u64 * STEP as u64 - rare * STEP as u64,
        };
        (counts, classes)
    }
}

/// 8 magnitudes `a` (at most 2^15): the number of quanta of the rounded value `q`, the
/// rounded value's exponent field, and the lanes where it equals `a` (all ones).
#[target_feature(enable = "avx2")]
#[inline]
fn lanes(c: &Consts, a: __m256i) -> (__m256i, __m256i, __m256i) {
    // the binade's field, at least 2^-22's; its quantum's power 2^(23 + e − width)
    let field = _mm256_max_epi32(_mm256_and_si256(a, c.exp), c.tiny);
    let k = _mm256_srli_epi32::<25>(_mm256_abs_epi32(_mm256_sub_epi32(field, c.bias)));
    // (bit 0 of the shift entry kept where the field is even)
    let shift = _mm256_andnot_si256(
        _mm256_srli_epi32::<23>(field),
        _mm256_permutevar8x32_epi32(c.shift, k),
    );
    let m = _mm256_add_epi32(field, shift);
    let y = _mm256_add_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(m));
    let r = _mm256_castps_si256(_mm256_sub_ps(y, _mm256_castsi256_ps(m)));
    (
        _mm256_sub_epi32(_mm256_castps_si256(y), m),
        _mm256_srli_epi32::<23>(r),
        _mm256_cmpeq_epi32(r, a),
    )
}

impl KeyLoop for HiF8Avx2 {
    fn name(&self) -> &'static str {
        "f32-hif8-avx2"
    }

    fn run(
        &self,
        table: &KeyTable,
        src: &[u8],
        dst: &mut [u8],
        n: usize,
        stream: bool,
    ) -> Option<StatusCounts> {
        self.cast(table, src, dst, n, stream)
    }
}
