//! f32 → e8m0 at the AVX2 level: the code is the f32's exponent field plus the mode's
//! rounding carry (the formula of the AVX-512 kernel, `docs/kernels.md`), a few integer ops
//! per 8 lanes, 32 elements per step. Status classes (zero, negative to NaN, inexact) are
//! counted in 32-bit lane counters; a step with an f32 subnormal, the top binade, ±Inf or
//! NaN, and the last `n % 32` elements, go to the key table (the reference's results). The
//! kernel is checked against the table on every key (each with three low-bit patterns) when
//! built and used only if it agrees on all of them.

use std::arch::x86_64::{
    __m256i, _mm256_add_epi32, _mm256_and_si256, _mm256_andnot_si256, _mm256_blendv_epi8,
    _mm256_cmpeq_epi32, _mm256_cmpgt_epi32, _mm256_loadu_si256, _mm256_or_si256,
    _mm256_packus_epi16, _mm256_packus_epi32, _mm256_permutevar8x32_epi32, _mm256_set1_epi32,
    _mm256_setr_epi32, _mm256_setzero_si256, _mm256_srli_epi32, _mm256_storeu_si256,
    _mm256_sub_epi32, _mm256_testz_si256,
};

use crate::bulk::kernels::drive;
use crate::bulk::kernels::flags::record_n;
use crate::bulk::kernels::mode;
use crate::bulk::kernels::table::f32_key::{KeyLoop, KeyTable};
use crate::format::Format;
use crate::policy::{CastPolicy, UnsignedNegative};
use crate::status::StatusCounts;

/// Elements per step.
const STEP: usize = 32;

/// f32 → e8m0 under one policy at the AVX2 level.
#[derive(Debug, Clone, Copy)]
pub(crate) struct E8m0Avx2 {
    /// The rounding mode (floor as trunc: e8m0 rounds magnitudes).
    mode: u8,
    /// Whether negative values become NaN ([`UnsignedNegative::Nan`]).
    neg_nan: bool,
    /// The code of a negative non-zero value when `neg_nan`.
    neg_code: u32,
    /// Raw statuses of the classes: exact, inexact, negative, zero.
    exact: u16,
    inexact: u16,
    negative: u16,
    zero: u16,
}

/// Class counts of the formula's lanes: zero, negative (to NaN), inexact, and all.
#[derive(Default)]
struct Classes {
    zero: u64,
    negative: u64,
    inexact: u64,
    total: u64,
}

impl E8m0Avx2 {
    /// The kernel for `table` (f32 → e8m0 under a deterministic mode) when the machine has
    /// AVX2 and the kernel reproduces the table on every key.
    pub(crate) fn new(table: &KeyTable) -> Option<E8m0Avx2> {
        if table.dst != Format::F8E8M0 || !crate::bulk::kernels::simd::avx2_present() {
            return None;
        }
        let policy: &CastPolicy = &table.policy;
        let mode = match mode::of(policy.round)? {
            mode::FLOOR => mode::TRUNC,
            m => m,
        };
        let at = |x: u32| drive::F32Element::apply(table, x);
        let k = E8m0Avx2 {
            mode,
            neg_nan: policy.unsigned_negative == UnsignedNegative::Nan,
            neg_code: at(0xBF80_0000).0,
            exact: at(0x3F80_0000).1,
            inexact: at(0x3F80_0001).1,
            negative: at(0xBF80_0000).1,
            zero: at(0).1,
        };
        k.agrees_with(table).then_some(k)
    }

    /// Whether the kernel gives the table's code and status on every key
    /// ([`KeyTable::agrees_on_every_key`], one step of copies each).
    fn agrees_with(&self, table: &KeyTable) -> bool {
        table.agrees_on_every_key(STEP, |src, out| self.cast(table, src, out, STEP))
    }

    /// Casts `n` little-endian f32 codes into one byte each; `None` without AVX2.
    fn cast(&self, table: &KeyTable, src: &[u8], dst: &mut [u8], n: usize) -> Option<StatusCounts> {
        if !crate::bulk::kernels::simd::avx2_present() || src.len() < 4 * n || dst.len() < n {
            return None;
        }
        let steps = n / STEP;
        // SAFETY: the CPU has AVX2 (checked just above); `src` and `dst` hold `n` codes.
        let (mut counts, classes) = unsafe {
            match (self.mode, self.neg_nan) {
                (mode::NEAREST_EVEN, true) => {
                    self.body::<{ mode::NEAREST_EVEN }, true>(table, src, dst, steps)
                }
                (mode::NEAREST_EVEN, false) => {
                    self.body::<{ mode::NEAREST_EVEN }, false>(table, src, dst, steps)
                }
                (mode::NEAREST_AWAY, true) => {
                    self.body::<{ mode::NEAREST_AWAY }, true>(table, src, dst, steps)
                }
                (mode::NEAREST_AWAY, false) => {
                    self.body::<{ mode::NEAREST_AWAY }, false>(table, src, dst, steps)
                }
                (mode::CEIL, true) => self.body::<{ mode::CEIL }, true>(table, src, dst, steps),
                (mode::CEIL, false) => self.body::<{ mode::CEIL }, false>(table, src, dst, steps),
                (mode::TRUNC, true) => self.body::<{ mode::TRUNC }, true>(table, src, dst, steps),
                (mode::TRUNC, false) => self.body::<{ mode::TRUNC }, false>(table, src, dst, steps),
                (_, true) => self.body::<{ mode::ODD }, true>(table, src, dst, steps),
                (_, false) => self.body::<{ mode::ODD }, false>(table, src, dst, steps),
            }
        };
        record_n(self.zero, classes.zero, &mut counts);
        record_n(self.negative, classes.negative, &mut counts);
        record_n(self.inexact, classes.inexact, &mut counts);
        let exact = classes.total - classes.zero - classes.negative - classes.inexact;
        record_n(self.exact, exact, &mut counts);
        let done = STEP * steps;
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

    /// The codes and class masks (zero, negative, inexact) of the 8 f32 codes `x` in mode
    /// `M`, negative values to NaN when `NEG_NAN`, and the mask of the lanes the formula does
    /// not cover (f32 subnormals, exponent fields 254 and 255).
    #[target_feature(enable = "avx2")]
    #[inline]
    fn lanes<const M: u8, const NEG_NAN: bool>(&self, x: __m256i) -> [__m256i; 5] {
        let one = _mm256_set1_epi32(1);
        let man = _mm256_set1_epi32(0x7F_FFFF);
        let byte = _mm256_set1_epi32(0xFF);
        let zero_v = _mm256_setzero_si256();
        let e = _mm256_and_si256(_mm256_srli_epi32::<23>(x), byte);
        let has_man = _mm256_andnot_si256(
            _mm256_cmpeq_epi32(_mm256_and_si256(x, man), zero_v),
            _mm256_set1_epi32(-1),
        );
        let code = match M {
            mode::NEAREST_EVEN => {
                let t = _mm256_add_epi32(x, _mm256_set1_epi32(0x3F_FFFF));
                _mm256_srli_epi32::<23>(_mm256_add_epi32(t, _mm256_and_si256(e, one)))
            }
            mode::NEAREST_AWAY => {
                _mm256_srli_epi32::<23>(_mm256_add_epi32(x, _mm256_set1_epi32(0x40_0000)))
            }
            mode::CEIL => _mm256_srli_epi32::<23>(_mm256_add_epi32(x, man)),
            mode::TRUNC => e,
            _ => _mm256_or_si256(e, _mm256_and_si256(has_man, one)),
        };
        let code = _mm256_and_si256(code, byte);
        let zero = _mm256_cmpeq_epi32(_mm256_and_si256(x, _mm256_set1_epi32(0x7FFF_FFFF)), zero_v);
        let (code, negative, inexact) = if NEG_NAN {
            let positive = _mm256_cmpgt_epi32(x, _mm256_set1_epi32(-1));
            let negative =
                _mm256_andnot_si256(_mm256_or_si256(positive, zero), _mm256_set1_epi32(-1));
            let code = _mm256_blendv_epi8(code, _mm256_set1_epi32(self.neg_code as i32), negative);
            (code, negative, _mm256_and_si256(positive, has_man))
        } else {
            // a negative non-zero value is inexact (its magnitude is cast)
            let signed = _mm256_cmpgt_epi32(zero_v, x);
            let inexact = _mm256_andnot_si256(zero, _mm256_or_si256(has_man, signed));
            (code, zero_v, inexact)
        };
        let subnormal = _mm256_and_si256(_mm256_cmpeq_epi32(e, zero_v), has_man);
        let top = _mm256_cmpgt_epi32(e, _mm256_set1_epi32(253));
        [
            code,
            zero,
            negative,
            inexact,
            _mm256_or_si256(subnormal, top),
        ]
    }

    /// The steps of 32 elements: codes stored, classes counted; a step with a rare lane goes
    /// to `table` (its counts returned apart).
    ///
    /// # Safety
    /// The CPU must support AVX2; `src` must hold `4 * STEP * steps` bytes and `dst`
    /// `STEP * steps`.
    #[target_feature(enable = "avx2")]
    unsafe fn body<const M: u8, const NEG_NAN: bool>(
        &self,
        table: &KeyTable,
        src: &[u8],
        dst: &mut [u8],
        steps: usize,
    ) -> (StatusCounts, Classes) {
        let mut counts = StatusCounts::default();
        let mut classes = Classes::default();
        let (mut zero, mut negative, mut inexact) = (
            _mm256_setzero_si256(),
            _mm256_setzero_si256(),
            _mm256_setzero_si256(),
        );
        let order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
        for (x, y) in src[..4 * STEP * steps]
            .chunks_exact(4 * STEP)
            .zip(dst[..STEP * steps].chunks_exact_mut(STEP))
        {
            // the two source lines 4 KiB ahead
            crate::bulk::kernels::stream::prefetch(x.as_ptr());
            crate::bulk::kernels::stream::prefetch(x.as_ptr().wrapping_add(64));
            let mut lanes = [[_mm256_setzero_si256(); 5]; 4];
            let mut rare = _mm256_setzero_si256();
            for (k, l) in lanes.iter_mut().enumerate() {
                // SAFETY: `x` holds 32 codes, 128 bytes; this reads bytes 32k..32k+32.
                let v = unsafe { _mm256_loadu_si256(x.as_ptr().add(32 * k).cast()) };
                *l = self.lanes::<M, NEG_NAN>(v);
                rare = _mm256_or_si256(rare, l[4]);
            }
            if _mm256_testz_si256(rare, rare) == 0 {
                counts.add(&drive::f32_to_codes::<u8>(x, y, STEP, table));
                continue;
            }
            for l in &lanes {
                zero = _mm256_sub_epi32(zero, l[1]);
                negative = _mm256_sub_epi32(negative, l[2]);
                inexact = _mm256_sub_epi32(inexact, l[3]);
            }
            // 32 dwords (each below 256) into 32 bytes in order
            let a = _mm256_packus_epi32(lanes[0][0], lanes[1][0]);
            let b = _mm256_packus_epi32(lanes[2][0], lanes[3][0]);
            let bytes = _mm256_permutevar8x32_epi32(_mm256_packus_epi16(a, b), order);
            // SAFETY: `y` is 32 bytes, the size of the unaligned store.
            unsafe { _mm256_storeu_si256(y.as_mut_ptr().cast(), bytes) };
            classes.total += STEP as u64;
        }
        let sum = |v: __m256i| -> u64 {
            let mut lanes = [0u32; 8];
            // SAFETY: `lanes` is 32 bytes, the size of the unaligned store.
            unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), v) };
            lanes.iter().map(|&c| u64::from(c)).sum()
        };
        classes.zero = sum(zero);
        classes.negative = sum(negative);
        classes.inexact = sum(inexact);
        (counts, classes)
    }
}

impl KeyLoop for E8m0Avx2 {
    fn name(&self) -> &'static str {
        "f32-e8m0-avx2"
    }

    fn run(
        &self,
        table: &KeyTable,
        src: &[u8],
        dst: &mut [u8],
        n: usize,
        stream: bool,
    ) -> Option<StatusCounts> {
        let _ = stream;
        self.cast(table, src, dst, n)
    }
}
