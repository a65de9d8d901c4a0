//! f32 → e8m0 at the AVX-512 level: the code is the f32's exponent field plus the mode's
//! rounding carry, a few integer ops per 16 lanes; steps with f32 subnormals, the top binade,
//! ±Inf or NaN go to the key table. The method is in `docs/kernels.md`.

use std::arch::x86_64::*;

use crate::bulk::kernels::drive::F32Element;
use crate::bulk::kernels::mode;
use crate::bulk::kernels::table::f32_key::KeyTable;
use crate::bulk::kernels::x86_avx512::f32_byte::{ClassStatus, present, record_n};
use crate::policy::{CastPolicy, UnsignedNegative};
use crate::status::StatusCounts;

/// Class masks: zero, negative (to NaN), inexact.
const C: usize = 3;

/// f32 → e8m0 under one policy at the AVX-512 level.
#[derive(Debug)]
pub(crate) struct E8m0Avx512 {
    /// The rounding mode.
    mode: u8,
    /// Whether negative values become NaN ([`UnsignedNegative::Nan`]) rather than their
    /// magnitude.
    neg_nan: bool,
    /// The code of a negative non-zero value when `neg_nan`.
    neg_code: u32,
    /// Raw statuses of the classes: exact, inexact, negative, zero.
    status: Statuses,
}

/// Raw statuses of the four classes.
#[derive(Debug, Clone, Copy)]
struct Statuses {
    exact: u16,
    inexact: u16,
    negative: u16,
    zero: u16,
}

impl ClassStatus<C> for Statuses {
    fn lane_status(&self, [zero, negative, inexact]: [bool; C]) -> u16 {
        if zero {
            self.zero
        } else if negative {
            self.negative
        } else if inexact {
            self.inexact
        } else {
            self.exact
        }
    }

    fn counts(&self, total: u64, [zero, negative, inexact]: [u64; C]) -> StatusCounts {
        let mut c = StatusCounts::default();
        record_n(&mut c, self.zero, zero);
        record_n(&mut c, self.negative, negative);
        record_n(&mut c, self.inexact, inexact);
        record_n(&mut c, self.exact, total - zero - negative - inexact);
        c
    }
}

impl E8m0Avx512 {
    /// The kernel for f32 → e8m0 under `policy` whose results are `table`'s, when the mode is
    /// deterministic, the machine has the AVX-512 level and POPCNT, and the kernel reproduces
    /// the table on every key.
    pub(crate) fn new(policy: &CastPolicy, table: &KeyTable) -> Option<E8m0Avx512> {
        if !present() {
            return None;
        }
        // floor is trunc on e8m0's magnitudes (negative values are blended in apart)
        let mode = match mode::of(policy.round)? {
            mode::FLOOR => mode::TRUNC,
            m => m,
        };
        let at = |x: u32| table.apply(x);
        let k = E8m0Avx512 {
            mode,
            neg_nan: policy.unsigned_negative == UnsignedNegative::Nan,
            neg_code: at(0xBF80_0000).0,
            status: Statuses {
                exact: at(0x3F80_0000).1,
                inexact: at(0x3F80_0001).1,
                negative: at(0xBF80_0000).1,
                zero: at(0).1,
            },
        };
        k.check(table).then_some(k)
    }

    /// Whether the kernel gives the table's results on every key.
    fn check(&self, table: &KeyTable) -> bool {
        crate::bulk::kernels::x86_avx512::f32_byte::check(
            table,
            &self.status,
            |xs, _level| {
                present().then(|| {
                    // SAFETY: the CPU has the features `lanes_at` needs (checked just above).
                    unsafe { lanes_at(self, xs) }
                })
            },
            |s, d, n| self.run(table, s, d, n, false),
        )
    }

    /// Casts `n` little-endian f32 codes into one byte each; `None` without the AVX-512 level
    /// and POPCNT. Steps with a rare lane and the last `n % 64` elements go through `table`.
    pub(crate) fn run(
        &self,
        table: &KeyTable,
        src: &[u8],
        dst: &mut [u8],
        n: usize,
        stream: bool,
    ) -> Option<StatusCounts> {
        crate::bulk::kernels::x86_avx512::f32_byte::run(
            self,
            dispatch,
            table,
            (src, dst),
            n,
            stream,
        )
    }
}

/// Calls `$f::<mode, neg_nan>($args)` for `$k`'s mode and negative rule.
macro_rules! by_mode {
    ($f:ident, $k:expr, $($arg:expr),*) => {
        match ($k.mode, $k.neg_nan) {
            (mode::NEAREST_EVEN, true) => $f::<{ mode::NEAREST_EVEN }, true>($($arg),*),
            (mode::NEAREST_EVEN, false) => $f::<{ mode::NEAREST_EVEN }, false>($($arg),*),
            (mode::NEAREST_AWAY, true) => $f::<{ mode::NEAREST_AWAY }, true>($($arg),*),
            (mode::NEAREST_AWAY, false) => $f::<{ mode::NEAREST_AWAY }, false>($($arg),*),
            (mode::CEIL, true) => $f::<{ mode::CEIL }, true>($($arg),*),
            (mode::CEIL, false) => $f::<{ mode::CEIL }, false>($($arg),*),
            (mode::TRUNC, true) => $f::<{ mode::TRUNC }, true>($($arg),*),
            (mode::TRUNC, false) => $f::<{ mode::TRUNC }, false>($($arg),*),
            (_, true) => $f::<{ mode::ODD }, true>($($arg),*),
            (_, false) => $f::<{ mode::ODD }, false>($($arg),*),
        }
    };
}

/// The codes and class masks (zero, negative to NaN, inexact) of 16 f32 codes
/// `x`, in mode `M`, negative values to NaN when `NEG_NAN`.
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline]
fn lanes<const M: u8, const NEG_NAN: bool>(
    k: &E8m0Avx512,
    x: __m512i,
) -> crate::bulk::kernels::x86_avx512::f32_byte::Lanes<C> {
    let one = _mm512_set1_epi32(1);
    let man = _mm512_set1_epi32(0x7F_FFFF);
    // the exponent field plus the mode's carry, in bits 23..30
    let code = match M {
        mode::NEAREST_EVEN => {
            // the exponent's last bit by shift and mask (no compare port)
            let t = _mm512_add_epi32(x, _mm512_set1_epi32(0x3F_FFFF));
            let lsb = _mm512_and_si512(_mm512_srli_epi32::<23>(x), one);
            _mm512_srli_epi32::<23>(_mm512_add_epi32(t, lsb))
        }
        mode::NEAREST_AWAY => {
            _mm512_srli_epi32::<23>(_mm512_add_epi32(x, _mm512_set1_epi32(0x40_0000)))
        }
        mode::CEIL => _mm512_srli_epi32::<23>(_mm512_add_epi32(x, man)),
        mode::TRUNC => _mm512_srli_epi32::<23>(x),
        _ => {
            let e = _mm512_srli_epi32::<23>(x);
            _mm512_mask_or_epi32(e, _mm512_test_epi32_mask(x, man), e, one)
        }
    };
    let zero = _mm512_testn_epi32_mask(x, _mm512_set1_epi32(0x7FFF_FFFF));
    let (code, negative, inexact) = if NEG_NAN {
        let positive = _mm512_cmpge_epi32_mask(x, _mm512_setzero_si512());
        let negative = !(positive | zero);
        let code = _mm512_mask_mov_epi32(code, negative, _mm512_set1_epi32(k.neg_code as i32));
        (
            code,
            negative,
            _mm512_mask_test_epi32_mask(positive, x, man),
        )
    } else {
        let inexact = _mm512_test_epi32_mask(x, _mm512_set1_epi32(0x807F_FFFF_u32 as i32));
        (code, 0, inexact & !zero)
    };
    crate::bulk::kernels::x86_avx512::f32_byte::Lanes {
        codes: code,
        classes: [zero, negative, inexact],
    }
}

/// The lanes [`lanes`] does not cover: f32 subnormals (class 0x20) and exponent fields 254
/// and 255 (the top binade, ±Inf, NaN).
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline]
fn rare(x: __m512i) -> __mmask16 {
    let top = _mm512_cmpge_epu32_mask(
        _mm512_slli_epi32::<1>(x),
        _mm512_set1_epi32(0xFE00_0000_u32 as i32),
    );
    top | _mm512_fpclass_ps_mask::<0x20>(_mm512_castsi512_ps(x))
}

/// The formula in mode `M`, negative values to NaN when `NEG_NAN` (one level: the loop's fast
/// and full levels are the same).
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline]
fn formula<const M: u8, const NEG_NAN: bool>(
    k: &E8m0Avx512,
) -> crate::bulk::kernels::x86_avx512::f32_byte::Formula<
    impl Fn(__m512i) -> __mmask16,
    impl Fn(__m512i) -> crate::bulk::kernels::x86_avx512::f32_byte::Lanes<C>,
> {
    crate::bulk::kernels::x86_avx512::f32_byte::Formula {
        rare: |x| rare(x),
        lanes: move |x| lanes::<M, NEG_NAN>(k, x),
        sign: false,
    }
}

/// [`lanes`] of 16 codes in `k`'s mode, as arrays.
///
/// # Safety
/// The CPU must support POPCNT and AVX-512 F, BW, VL, DQ and VBMI.
#[target_feature(enable = "avx2,popcnt,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
unsafe fn lanes_at(k: &E8m0Avx512, xs: &[u32; 16]) -> ([u32; 16], [u16; C], u16) {
    /// [`lanes`] in mode `M`.
    #[target_feature(enable = "avx2,popcnt,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
    unsafe fn at<const M: u8, const NEG_NAN: bool>(
        k: &E8m0Avx512,
        xs: &[u32; 16],
    ) -> ([u32; 16], [u16; C], u16) {
        // SAFETY: the features `lanes_of` needs are enabled here.
        unsafe {
            crate::bulk::kernels::x86_avx512::f32_byte::lanes_of(xs, formula::<M, NEG_NAN>(k))
        }
    }
    // SAFETY: the caller's guarantees.
    unsafe { by_mode!(at, k, k, xs) }
}

/// The cast of a slice in `k`'s mode.
///
/// # Safety
/// As for [`cast`].
#[target_feature(enable = "avx2,popcnt,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
unsafe fn dispatch(
    k: &E8m0Avx512,
    table: &KeyTable,
    src: &[u8],
    dst: &mut [u8],
    stream: bool,
) -> StatusCounts {
    // SAFETY: the caller's guarantees.
    unsafe { by_mode!(cast, k, k, table, src, dst, stream) }
}

/// The cast of `dst.len()` codes in mode `M` (see [`lanes`]).
///
/// # Safety
/// The CPU must support POPCNT and AVX-512 F, BW, VL, DQ and VBMI; `src` must hold 4 bytes
/// per byte of `dst`, and `dst` start on a 64-byte boundary with `stream`.
#[target_feature(enable = "avx2,popcnt,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
unsafe fn cast<const M: u8, const NEG_NAN: bool>(
    k: &E8m0Avx512,
    table: &KeyTable,
    src: &[u8],
    dst: &mut [u8],
    stream: bool,
) -> StatusCounts {
    let n = dst.len();
    // SAFETY: the caller's guarantees; the lane function needs only the features enabled
    // here.
    let (mut counts, formula, classes) = unsafe {
        crate::bulk::kernels::x86_avx512::f32_byte::drive(
            table,
            src,
            dst,
            n,
            stream,
            formula::<M, NEG_NAN>(k),
            formula::<M, NEG_NAN>(k),
        )
    };
    counts.add(&k.status.counts(formula, classes));
    counts
}
