//! f32 → HiF8 at the AVX-512 level: the magnitude rounded in place at its binade's mantissa
//! width, then the code from a per-exponent prefix, by two `vpermb` lookups per 16 lanes;
//! steps with values above 2^15, ±Inf or NaN go to the key table. The method is in
//! `docs/kernels.md`.

use std::arch::x86_64::*;

use crate::bulk::kernels::drive::F32Element;
use crate::bulk::kernels::mode;
use crate::bulk::kernels::table::f32_key::KeyTable;
use crate::bulk::kernels::x86_avx512::f32_byte::{ClassStatus, present, record_n};
use crate::encoding::hif8::{MAX_EXP, MIN_DENORMAL_EXP, mantissa_bits};
use crate::policy::CastPolicy;
use crate::round::RoundMode;
use crate::status::StatusCounts;

/// Class masks: zero, flushed, underflow, inexact (a superset of the underflow and flushed
/// lanes).
const C: usize = 4;

/// The f32 bits of 2^−22, HiF8's smallest positive value: below it a lane is "tiny".
const TINY: u32 = ((127 + MIN_DENORMAL_EXP) as u32) << 23;
/// The f32 bits of 2^−23, half of it.
const TINY_HALF: u32 = TINY - (1 << 23);
/// The f32 bits of 2^−15, the smallest value with a mantissa bit: inexact results below it
/// underflow.
const MIN_NORMAL: u32 = ((127 + crate::encoding::hif8::MIN_NORMAL_EXP) as u32) << 23;
/// The f32 bits of 2^15, the largest finite value: lanes above it are rare.
const MAX: u32 = ((127 + MAX_EXP) as u32) << 23;

/// f32 → HiF8 under one policy at the AVX-512 level.
#[derive(Debug)]
pub(crate) struct HiF8Avx512 {
    /// The rounding mode.
    mode: u8,
    /// Per exponent field `E` (at `E mod 64`) of the binades −22..15: `s`, the bit the grid
    /// starts at.
    shift: [u8; 64],
    /// Per exponent field (at `E mod 64`) of the binades −22..15: the code of 2^(E − 127).
    prefix: [u8; 64],
    /// Raw statuses of the classes.
    status: Statuses,
}

/// Raw statuses of the five classes.
#[derive(Debug, Clone, Copy)]
struct Statuses {
    exact: u16,
    inexact: u16,
    underflow: u16,
    flushed: u16,
    zero: u16,
}

impl ClassStatus<C> for Statuses {
    fn lane_status(&self, [zero, flushed, underflow, inexact]: [bool; C]) -> u16 {
        if zero {
            self.zero
        } else if flushed {
            self.flushed
        } else if underflow {
            self.underflow
        } else if inexact {
            self.inexact
        } else {
            self.exact
        }
    }

    fn counts(&self, total: u64, [zero, flushed, underflow, inexact]: [u64; C]) -> StatusCounts {
        let mut c = StatusCounts::default();
        record_n(&mut c, self.zero, zero);
        record_n(&mut c, self.flushed, flushed);
        record_n(&mut c, self.underflow, underflow);
        record_n(&mut c, self.inexact, inexact - underflow - flushed);
        record_n(&mut c, self.exact, total - inexact - zero);
        c
    }
}

impl HiF8Avx512 {
    /// The kernel for f32 → HiF8 under `policy` whose results are `table`'s, when the mode is
    /// deterministic, the machine has the AVX-512 level and POPCNT, and the kernel reproduces
    /// the table on every key.
    pub(crate) fn new(policy: &CastPolicy, table: &KeyTable) -> Option<HiF8Avx512> {
        if !present() {
            return None;
        }
        let mode = mode::of(policy.round)?;
        let at = |x: u32| table.apply(x);
        let (mut shift, mut prefix) = ([23u8; 64], [0u8; 64]);
        for e in MIN_DENORMAL_EXP..=MAX_EXP {
            let field = (e + 127) as u32;
            let i = (field % 64) as usize;
            shift[i] = (23 - mantissa_bits(e)) as u8;
            prefix[i] = at(field << 23).0 as u8;
        }
        let k = HiF8Avx512 {
            mode,
            shift,
            prefix,
            status: Statuses {
                exact: at(0x3F80_0000).1,
                // 1 + 2^-23: rounds to 1 in every mode but ceil and odd, which give 1.125
                inexact: at(0x3F80_0001).1,
                // 2^-20 × (1 + 2^-23)
                underflow: at(0x3580_0001).1,
                // ∓2^-30, on the side the mode rounds toward zero (none under odd)
                flushed: at(if policy.round == RoundMode::Ceil {
                    0xB080_0000
                } else {
                    0x3080_0000
                })
                .1,
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
            |xs, level| {
                present().then(|| {
                    // SAFETY: the CPU has the features `lanes_at` needs (checked just above).
                    unsafe { lanes_at(self, xs, level) }
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

/// Calls `$f::<mode>($args)` for `$k`'s mode.
macro_rules! by_mode {
    ($f:ident, $k:expr, $($arg:expr),*) => {
        match $k.mode {
            mode::NEAREST_EVEN => $f::<{ mode::NEAREST_EVEN }>($($arg),*),
            mode::NEAREST_AWAY => $f::<{ mode::NEAREST_AWAY }>($($arg),*),
            mode::FLOOR => $f::<{ mode::FLOOR }>($($arg),*),
            mode::CEIL => $f::<{ mode::CEIL }>($($arg),*),
            mode::TRUNC => $f::<{ mode::TRUNC }>($($arg),*),
            _ => $f::<{ mode::ODD }>($($arg),*),
        }
    };
}

/// The two lookup tables in registers: `shift`, `prefix`.
#[derive(Clone, Copy)]
struct Tables {
    shift: __m512i,
    prefix: __m512i,
}

/// `k`'s tables, loaded.
#[target_feature(enable = "avx512f")]
#[inline]
fn tables(k: &HiF8Avx512) -> Tables {
    // SAFETY: both arrays are 64 bytes, the size of the unaligned loads.
    unsafe {
        Tables {
            shift: _mm512_loadu_si512(k.shift.as_ptr().cast()),
            prefix: _mm512_loadu_si512(k.prefix.as_ptr().cast()),
        }
    }
}

/// The band formula (2^-22 to 2^15) on 16 f32 codes `x` in mode `M`: the magnitude `a`, its
/// rounding `r` (f32 bits), the code without its sign (low byte), and the inexact and
/// underflow lanes.
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline]
fn band<const M: u8>(t: Tables, x: __m512i) -> (__m512i, __m512i, __mmask16, __mmask16) {
    // byte 0 of each dword: `vpermb` results kept there, the other bytes zeroed
    const BYTE0: u64 = 0x1111_1111_1111_1111;
    let one = _mm512_set1_epi32(1);
    let a = _mm512_and_si512(x, _mm512_set1_epi32(0x7FFF_FFFF));
    let s = _mm512_maskz_permutexvar_epi8(BYTE0, _mm512_srli_epi32::<23>(a), t.shift);
    let unit = _mm512_sllv_epi32(one, s);
    let below = _mm512_sub_epi32(unit, one);
    let sum = match M {
        mode::NEAREST_EVEN => {
            // half − 1, plus the last kept bit (shift and mask: no compare port)
            let lsb = _mm512_and_si512(_mm512_srlv_epi32(a, s), one);
            _mm512_add_epi32(_mm512_add_epi32(a, _mm512_srli_epi32::<1>(below)), lsb)
        }
        mode::NEAREST_AWAY => _mm512_add_epi32(a, _mm512_srli_epi32::<1>(unit)),
        mode::FLOOR => _mm512_mask_add_epi32(a, _mm512_movepi32_mask(x), a, below),
        mode::CEIL => _mm512_mask_add_epi32(a, !_mm512_movepi32_mask(x), a, below),
        mode::TRUNC => a,
        _ => _mm512_mask_or_epi32(a, _mm512_test_epi32_mask(a, below), a, unit),
    };
    // the rounded magnitude, as f32 bits; its exponent's prefix (only the low byte counts)
    let r = _mm512_andnot_si512(below, sum);
    let prefix = _mm512_permutexvar_epi8(_mm512_srli_epi32::<23>(r), t.prefix);
    let frac = _mm512_srlv_epi32(_mm512_and_si512(r, _mm512_set1_epi32(0x7F_FFFF)), s);
    let changed = _mm512_cmpneq_epu32_mask(r, a);
    let underflow = _mm512_mask_cmplt_epu32_mask(changed, r, _mm512_set1_epi32(MIN_NORMAL as i32));
    (a, _mm512_or_si512(prefix, frac), changed, underflow)
}

/// The lanes [`fast`] does not cover: below 2^-22 (zero too) and above 2^15.
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline]
fn fast_rare(x: __m512i) -> __mmask16 {
    let a = _mm512_and_si512(x, _mm512_set1_epi32(0x7FFF_FFFF));
    _mm512_cmpgt_epu32_mask(
        _mm512_sub_epi32(a, _mm512_set1_epi32(TINY as i32)),
        _mm512_set1_epi32((MAX - TINY) as i32),
    )
}

/// The codes (unsigned: the loop adds the sign) and class masks (underflow, inexact) of 16
/// f32 codes `x` from 2^-22 to 2^15, in mode `M`.
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline]
fn fast<const M: u8>(
    t: Tables,
    x: __m512i,
) -> crate::bulk::kernels::x86_avx512::f32_byte::Lanes<C> {
    let (_, code, inexact, underflow) = band::<M>(t, x);
    crate::bulk::kernels::x86_avx512::f32_byte::Lanes {
        codes: code,
        classes: [0, 0, underflow, inexact],
    }
}

/// The lanes [`full`] does not cover: above 2^15 (the top binade past its start, overflow,
/// ±Inf, NaN).
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline]
fn full_rare(x: __m512i) -> __mmask16 {
    let a = _mm512_and_si512(x, _mm512_set1_epi32(0x7FFF_FFFF));
    _mm512_cmpgt_epu32_mask(a, _mm512_set1_epi32(MAX as i32))
}

/// The codes and class masks (zero, flushed, underflow, inexact) of 16 f32 codes `x` up to
/// 2^15, in mode `M`: [`band`], with the values below 2^-22 blended in.
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline]
fn full<const M: u8>(
    t: Tables,
    x: __m512i,
) -> crate::bulk::kernels::x86_avx512::f32_byte::Lanes<C> {
    let one = _mm512_set1_epi32(1);
    let (a, code, changed, underflow) = band::<M>(t, x);
    let sign = _mm512_srli_epi32::<24>(x);
    let c80 = _mm512_set1_epi32(0x80);
    let signed = _mm512_ternarylogic_epi32::<0xF8>(code, sign, c80);
    // below 2^-22: 0, or ±2^-22 (code 1) where the mode rounds up
    let negative = _mm512_movepi32_mask(x);
    let nonzero = _mm512_test_epi32_mask(a, a);
    let big = _mm512_cmpge_epu32_mask(a, _mm512_set1_epi32(TINY as i32));
    let tiny_nonzero = nonzero & !big;
    let half = _mm512_set1_epi32(TINY_HALF as i32);
    let up = match M {
        mode::NEAREST_EVEN => _mm512_mask_cmpgt_epu32_mask(tiny_nonzero, a, half),
        mode::NEAREST_AWAY => _mm512_mask_cmpge_epu32_mask(tiny_nonzero, a, half),
        mode::FLOOR => tiny_nonzero & negative,
        mode::CEIL => tiny_nonzero & !negative,
        mode::TRUNC => 0,
        _ => tiny_nonzero,
    };
    let small = _mm512_maskz_mov_epi32(up, _mm512_ternarylogic_epi32::<0xF8>(one, sign, c80));
    crate::bulk::kernels::x86_avx512::f32_byte::Lanes {
        codes: _mm512_mask_mov_epi32(signed, !big, small),
        classes: [
            !(big | nonzero),
            tiny_nonzero & !up,
            (underflow & big) | up,
            (changed & big) | tiny_nonzero,
        ],
    }
}

/// The two levels of the formula in mode `M`: [`fast`] (the sign or'ed in by the loop) and
/// [`full`].
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline]
#[allow(clippy::type_complexity)]
fn formulas<const M: u8>(
    t: Tables,
) -> (
    crate::bulk::kernels::x86_avx512::f32_byte::Formula<
        impl Fn(__m512i) -> __mmask16,
        impl Fn(__m512i) -> crate::bulk::kernels::x86_avx512::f32_byte::Lanes<C>,
    >,
    crate::bulk::kernels::x86_avx512::f32_byte::Formula<
        impl Fn(__m512i) -> __mmask16,
        impl Fn(__m512i) -> crate::bulk::kernels::x86_avx512::f32_byte::Lanes<C>,
    >,
) {
    (
        crate::bulk::kernels::x86_avx512::f32_byte::Formula {
            rare: |x| fast_rare(x),
            lanes: move |x| fast::<M>(t, x),
            sign: true,
        },
        crate::bulk::kernels::x86_avx512::f32_byte::Formula {
            rare: |x| full_rare(x),
            lanes: move |x| full::<M>(t, x),
            sign: false,
        },
    )
}

/// The results of level `level` (0: [`fast`], 1: [`full`]) on 16 codes in `k`'s mode, as
/// arrays.
///
/// # Safety
/// The CPU must support POPCNT and AVX-512 F, BW, VL, DQ and VBMI.
#[target_feature(enable = "avx2,popcnt,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
unsafe fn lanes_at(k: &HiF8Avx512, xs: &[u32; 16], level: usize) -> ([u32; 16], [u16; C], u16) {
    /// The level's results in mode `M`.
    #[target_feature(enable = "avx2,popcnt,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
    unsafe fn at<const M: u8>(
        k: &HiF8Avx512,
        xs: &[u32; 16],
        level: usize,
    ) -> ([u32; 16], [u16; C], u16) {
        let (fast, full) = formulas::<M>(tables(k));
        // SAFETY: the features `lanes_of` needs are enabled here.
        unsafe {
            if level == 0 {
                crate::bulk::kernels::x86_avx512::f32_byte::lanes_of(xs, fast)
            } else {
                crate::bulk::kernels::x86_avx512::f32_byte::lanes_of(xs, full)
            }
        }
    }
    // SAFETY: the caller's guarantees.
    unsafe { by_mode!(at, k, k, xs, level) }
}

/// The cast of a slice in `k`'s mode.
///
/// # Safety
/// As for [`cast`].
#[target_feature(enable = "avx2,popcnt,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
unsafe fn dispatch(
    k: &HiF8Avx512,
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
unsafe fn cast<const M: u8>(
    k: &HiF8Avx512,
    table: &KeyTable,
    src: &[u8],
    dst: &mut [u8],
    stream: bool,
) -> StatusCounts {
    let n = dst.len();
    let (fast, full) = formulas::<M>(tables(k));
    // SAFETY: the caller's guarantees; the lane functions need only the features enabled
    // here.
    let (mut counts, formula, classes) = unsafe {
        crate::bulk::kernels::x86_avx512::f32_byte::drive(table, src, dst, n, stream, fast, full)
    };
    counts.add(&k.status.counts(formula, classes));
    counts
}
