//! f32 → binary floats of at most 16 bits (f16, bf16, the fp8 family with a sign, fp6, fp4),
//! in every deterministic rounding mode and under every policy: branchless integer arithmetic
//! on the f32 code, which the compiler vectorises.
//!
//! Only the finite, in-range rounding is computed here. What ±Inf, NaN and finite overflow
//! become depends on the policy, the mode and the sign but not on the value (NaN: at most on
//! its payload bits, kept by a fixed rule); those results are taken from the reference routine
//! when the kernel is built, and the kernel checks itself against the reference on a set of
//! probe codes before it is used (if any differs, the slice falls back to another kernel).

use crate::bulk::kernels::drive::{self, F32Element};
use crate::bulk::kernels::mode;
use crate::bulk::kernels::portable::f32_half::{Bf16, F16c, SpecialResults, rounding};
use crate::bulk::kernels::portable::f32_small_float::SmallFloat;
use crate::bulk::kernels::simd::{SimdLevel, on_x86_64};
use crate::convert::convert_with_status;
use crate::format::{Format, Kind, Specials};
use crate::policy::CastPolicy;
use crate::status::Status;

const INEXACT: u16 = Status::INEXACT.bits();
const UNDERFLOW: u16 = Status::UNDERFLOW.bits();
const FLUSHED: u16 = Status::FLUSHED_TO_ZERO.bits();
const SATURATED: u16 = Status::SATURATED.bits();

/// Destination layouts whose constants are compiled into the loop (const-generic parameter:
/// immediate shifts, no constants spilled to the stack); `GENERIC` reads them from the kernel.
mod layout {
    pub const GENERIC: u8 = 0;
    /// bf16: 7 mantissa bits, bias 127 (so f32 subnormals need no separate path).
    pub const BF16: u8 = 1;
    /// f16: 10 mantissa bits, bias 15.
    pub const F16: u8 = 2;
    /// 8-bit e4m3: 3 mantissa bits, bias 7.
    pub const E4M3: u8 = 3;
    /// 8-bit e5m2: 2 mantissa bits, bias 15.
    pub const E5M2: u8 = 4;

    /// (bits, mantissa bits dropped, f32 exponent of the destination's exponent 0) of `l`.
    pub const fn constants(l: u8) -> Option<(u32, u32, u32)> {
        match l {
            BF16 => Some((16, 16, 0)),
            F16 => Some((16, 13, 112)),
            E4M3 => Some((8, 20, 120)),
            E5M2 => Some((8, 21, 112)),
            _ => None,
        }
    }
}

/// A result fixed by the policy: destination code and raw status bits.
type Fixed = (u32, u16);

/// f32 → one binary float destination under one policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FloatDst {
    /// Destination width in bits (1, 2 or 4-bit nibble stores follow from it).
    bits: u32,
    /// Mantissa bits dropped from a normal f32 (23 − destination mantissa bits).
    shift: u32,
    /// The f32 biased exponent of the destination's biased exponent 0 (127 − bias).
    e0: u32,
    /// Mantissa mask of the destination.
    man_mask: u32,
    /// Smallest normal magnitude code of the destination.
    min_normal: u32,
    /// Largest finite magnitude code of the destination.
    max_code: u32,
    /// The f32 magnitude bits of that largest finite value.
    max_abs: u32,
    /// The mode (see [`mode`]).
    mode: u8,
    /// ±Inf inputs, by sign.
    inf: [Fixed; 2],
    /// Finite inputs beyond the largest finite value after rounding, by sign.
    overflow: [Fixed; 2],
    /// NaN inputs, by sign: the code's fixed bits and the status ...
    nan_fixed: [Fixed; 2],
    /// ... and the mask of the payload bits kept (zero when NaN gives a fixed code).
    nan_payload: u32,
    /// For f32 → f16: the AVX2 + F16C kernel.
    f16c: Option<F16c>,
    /// For f32 → bf16: the AVX2 kernel.
    bf16: Option<Bf16>,
    /// For destinations of at most 8 bits: whether the AVX-512 kernel agrees with the
    /// reference on the probe codes (false on a machine without AVX-512).
    avx512: bool,
}

fn reference(x: u32, dst: Format, policy: &CastPolicy) -> Fixed {
    let r = convert_with_status(u64::from(x), Format::F32, dst, policy, 0);
    (r.code as u32, r.status.bits())
}

/// f32 codes the kernel is checked on when it is built: every class boundary of the
/// destination (both signs), NaN payloads, ±Inf, ±0 and f32 subnormals.
fn probes(d: &FloatDst) -> Vec<u32> {
    let mut v = vec![
        0,
        1,
        0x007F_FFFF,
        0x0080_0000,
        0x3F80_0000,
        0x7F7F_FFFF,
        0x7F80_0000,
        0x7F80_0001,
        0x7FC0_0000,
        0x7FFF_FFFF,
        0x7FA1_2345,
        0x7FC0_1000,
    ];
    let step = 1u32 << d.shift;
    for base in [d.max_abs, (d.e0 + 1) << 23, d.e0 << 23, 0x3F80_0000] {
        for k in [0, step / 2, step / 2 + 1, step - 1, step, step + step / 2] {
            v.push(base.wrapping_add(k));
            v.push(base.wrapping_sub(k));
        }
    }
    let neg: Vec<u32> = v.iter().map(|x| x | 0x8000_0000).collect();
    v.extend(neg);
    v
}

impl FloatDst {
    /// The kernel for f32 → `dst` under `policy`, if `dst` is a signed binary float of at most
    /// 16 bits with IEEE, fn-style or no specials, the mode is deterministic, and the kernel
    /// agrees with the reference on its probe codes.
    pub(crate) fn new(dst: Format, policy: &CastPolicy) -> Option<FloatDst> {
        let Kind::Binary(spec) = dst.kind() else {
            return None;
        };
        let usable_specials = matches!(
            spec.specials,
            Specials::Ieee | Specials::NanOnlyAllOnes | Specials::FiniteOnly
        );
        if !spec.signed
            || !usable_specials
            || dst.bits() > 16
            || spec.man_bits == 0
            || spec.man_bits > 16
            || !(1..=127).contains(&spec.bias)
        {
            return None;
        }
        let mode = mode::of(policy.round)?;
        let max_abs = (dst.max_finite() as f32).to_bits();
        let max = reference(max_abs, dst, policy);
        let sign_bit = 1u32 << (dst.bits() - 1);
        let pair = |x: u32| {
            [
                reference(x, dst, policy),
                reference(x | 0x8000_0000, dst, policy),
            ]
        };
        let quiet = reference(0x7FC0_0000, dst, policy);
        let nan_fixed = pair(0x7FC0_0000);
        let mut d = FloatDst {
            bits: dst.bits(),
            shift: 23 - spec.man_bits,
            e0: (127 - spec.bias) as u32,
            man_mask: (1 << spec.man_bits) - 1,
            min_normal: 1 << spec.man_bits,
            max_code: max.0 & (sign_bit - 1),
            max_abs,
            mode,
            inf: pair(0x7F80_0000),
            overflow: pair(0x7F7F_FFFF),
            nan_fixed,
            nan_payload: 0,
            f16c: None,
            bf16: None,
            avx512: false,
        };
        let probes = probes(&d);
        let agrees = |d: &FloatDst| {
            probes
                .iter()
                .all(|&x| d.convert(x) == reference(x, dst, policy))
        };
        if agrees(&d) {
            return Some(d.with_simd(dst, policy));
        }
        // NaN keeps its payload's top bits: the fixed part is the sign and the quiet NaN.
        d.nan_fixed = [quiet, (quiet.0 | sign_bit, quiet.1)];
        d.nan_payload = d.man_mask;
        if !agrees(&d) {
            return None;
        }
        Some(d.with_simd(dst, policy))
    }

    /// `self` with its SIMD kernel, if it is f32 → f16 or f32 → bf16 (the kernels round the
    /// finite lanes themselves and take NaN, ±Inf and overflow from `self`) and the kernel
    /// agrees with the reference on the probe codes (on a machine that can run it).
    fn with_simd(mut self, dst: Format, policy: &CastPolicy) -> FloatDst {
        self.avx512 = self.avx512_agrees(dst, policy);
        let rounding = match self.mode {
            mode::NEAREST_EVEN => rounding::NEAREST_EVEN,
            mode::NEAREST_AWAY => rounding::NEAREST_AWAY,
            mode::FLOOR => rounding::FLOOR,
            mode::CEIL => rounding::CEIL,
            mode::TRUNC => rounding::TRUNC,
            _ => rounding::ODD,
        };
        let specials = SpecialResults {
            nan: self.nan_fixed,
            nan_payload: self.nan_payload,
            inf: self.inf,
            overflow: self.overflow,
        };
        let is = |l: u8, max_code: u32, max_abs: u32| {
            layout::constants(l) == Some((self.bits, self.shift, self.e0))
                && self.max_code == max_code
                && self.max_abs == max_abs
        };
        if is(layout::F16, 0x7BFF, 0x477F_E000) {
            let k = F16c::new(rounding, specials);
            let agrees = |wide| {
                self.simd_agrees(dst, policy, |s, d, n| {
                    on_x86_64!(k.run(s, d, n, wide, false), {
                        let _ = (s, d, n, wide);
                        None
                    })
                })
            };
            self.f16c = (agrees(false) && agrees(true)).then_some(k);
        } else if is(layout::BF16, 0x7F7F, 0x7F7F_0000) {
            let k = Bf16::new(rounding, specials);
            let agrees = |wide| {
                self.simd_agrees(dst, policy, |s, d, n| {
                    on_x86_64!(k.run(s, d, n, wide, false), {
                        let _ = (s, d, n, wide);
                        None
                    })
                })
            };
            self.bf16 = (agrees(false) && agrees(true)).then_some(k);
        }
        self
    }

    /// Whether a 16-bit SIMD kernel (`run`, `None` when the machine lacks it) gives the
    /// reference's codes and status counts on the probe codes.
    fn simd_agrees(
        &self,
        dst: Format,
        policy: &CastPolicy,
        run: impl Fn(&[u8], &mut [u8], usize) -> Option<crate::status::StatusCounts>,
    ) -> bool {
        let codes = probes(self);
        let src: Vec<u8> = codes.iter().flat_map(|c| c.to_le_bytes()).collect();
        let mut out = vec![0u8; 2 * codes.len()];
        let Some(counts) = run(&src, &mut out, codes.len()) else {
            return true;
        };
        let mut want = crate::status::StatusCounts::default();
        let codes_agree = codes.iter().zip(out.chunks_exact(2)).all(|(&x, got)| {
            let (code, status) = reference(x, dst, policy);
            crate::bulk::kernels::flags::record_n(status, 1, &mut want);
            u32::from(u16::from_le_bytes([got[0], got[1]])) == code
        });
        codes_agree && counts == want
    }

    /// Whether the AVX-512 small-float kernel runs on this machine and gives the reference's
    /// codes and status counts on the probe codes (repeated to whole steps), one code per byte
    /// and, for 4-bit destinations, two per byte.
    fn avx512_agrees(&self, dst: Format, policy: &CastPolicy) -> bool {
        let sf = self.small_float();
        let mut codes = probes(self);
        let whole = codes.len().div_ceil(64) * 64;
        codes.extend_from_within(..whole - codes.len());
        let src: Vec<u8> = codes.iter().flat_map(|c| c.to_le_bytes()).collect();
        let mut want = crate::status::StatusCounts::default();
        let want_codes: Vec<u32> = codes
            .iter()
            .map(|&x| {
                let (code, status) = reference(x, dst, policy);
                crate::bulk::kernels::flags::record_n(status, 1, &mut want);
                code
            })
            .collect();
        let n = codes.len();
        let mut agrees = false;
        for packed in [false, true] {
            if !sf.serves_avx512(packed) {
                continue;
            }
            let mut out = vec![0u8; if packed { n / 2 } else { n }];
            let Some((done, counts)) = on_x86_64!(
                crate::bulk::kernels::x86_avx512::f32_small_float::run_body(
                    &sf, &src, &mut out, n, packed, false
                ),
                {
                    let _ = (&src, &mut out);
                    None::<(usize, crate::status::StatusCounts)>
                }
            ) else {
                return false;
            };
            let got = |i: usize| match out.get(if packed { i / 2 } else { i }) {
                Some(&b) if packed => u32::from(b >> (4 * (i % 2)) & 0xF),
                Some(&b) => u32::from(b),
                None => u32::MAX,
            };
            if done != n || counts != want || (0..n).any(|i| got(i) != want_codes[i]) {
                return false;
            }
            agrees = true;
        }
        agrees
    }

    /// The name of the SIMD kernel this cast runs at the AVX2 level, if it has one.
    pub(crate) const fn simd_name(&self) -> Option<&'static str> {
        if self.f16c.is_some() {
            Some("f16c")
        } else if self.bf16.is_some() {
            Some("f32-bf16")
        } else {
            None
        }
    }

    /// Code and raw status bits of the f32 code `x` (the loop body; `M` is `self.mode`).
    #[inline(always)]
    fn convert_mode<const M: u8, const L: u8>(&self, x: u32) -> (u32, u16) {
        let (bits, shift, e0) = match layout::constants(L) {
            Some(c) => c,
            None => (self.bits, self.shift, self.e0),
        };
        let min_normal = if L == layout::GENERIC {
            self.min_normal
        } else {
            1 << (23 - shift)
        };
        let neg = x >> 31;
        let abs = x & 0x7FFF_FFFF;
        let e = abs >> 23;
        let normal = e > e0;
        // Normal results: rebias the exponent and drop `shift` mantissa bits. Subnormal ones:
        // the significand with its implicit bit, shifted further (at most 31: beyond that the
        // value is below half the smallest subnormal in every mode's eyes, as `rem` keeps it).
        // For bf16 (exponent 0 is the f32's) both are the f32 magnitude shifted by 16.
        let implicit = if e == 0 { 0 } else { 0x80_0000 };
        let sub_shift = (shift + e0 + 1).wrapping_sub(e.max(1)).min(31);
        let (base, shift) = if L == layout::BF16 {
            (abs, shift)
        } else if normal {
            (abs.wrapping_sub(e0 << 23), shift)
        } else {
            ((abs & 0x7F_FFFF) | implicit, sub_shift)
        };
        let q = base >> shift;
        let rem = base & ((1u32 << shift) - 1);
        let half = 1u32 << (shift - 1);
        let inexact = rem != 0;
        let lsb = q & 1 == 1;
        let up = match M {
            mode::NEAREST_EVEN => (rem > half) | ((rem == half) & lsb),
            mode::NEAREST_AWAY => rem >= half,
            mode::FLOOR => inexact & (neg == 1),
            mode::CEIL => inexact & (neg == 0),
            mode::TRUNC => false,
            _ => inexact & !lsb,
        };
        let out = q + u32::from(up);
        let flag = |b: bool, f: u16| if b { f } else { 0 };
        let status = flag(inexact, INEXACT)
            | flag(inexact & (out < min_normal), UNDERFLOW)
            | flag(inexact & (out == 0), FLUSHED)
            | flag((out == self.max_code) & (abs > self.max_abs), SATURATED);
        let finite = ((neg << (bits - 1)) | out, status);
        let negative = neg == 1;
        let pick = |r: [Fixed; 2]| if negative { r[1] } else { r[0] };
        let (nan_base, nan_status) = pick(self.nan_fixed);
        let shift_nan = match layout::constants(L) {
            Some(c) => c.1,
            None => self.shift,
        };
        let nan = (
            nan_base | ((abs >> shift_nan) & self.nan_payload),
            nan_status,
        );
        if abs > 0x7F80_0000 {
            nan
        } else if abs == 0x7F80_0000 {
            pick(self.inf)
        } else if out > self.max_code {
            pick(self.overflow)
        } else {
            finite
        }
    }

    /// Code and raw status bits of one f32 code (any mode; for building and checking).
    fn convert(&self, x: u32) -> (u32, u16) {
        match self.mode {
            mode::NEAREST_EVEN => {
                self.convert_mode::<{ mode::NEAREST_EVEN }, { layout::GENERIC }>(x)
            }
            mode::NEAREST_AWAY => {
                self.convert_mode::<{ mode::NEAREST_AWAY }, { layout::GENERIC }>(x)
            }
            mode::FLOOR => self.convert_mode::<{ mode::FLOOR }, { layout::GENERIC }>(x),
            mode::CEIL => self.convert_mode::<{ mode::CEIL }, { layout::GENERIC }>(x),
            mode::TRUNC => self.convert_mode::<{ mode::TRUNC }, { layout::GENERIC }>(x),
            _ => self.convert_mode::<{ mode::ODD }, { layout::GENERIC }>(x),
        }
    }

    /// Casts `n` little-endian f32 codes; `packed` stores 4-bit results two per byte.
    #[inline(always)]
    pub(crate) fn run(
        &self,
        level: SimdLevel,
        src: &[u8],
        dst: &mut [u8],
        n: usize,
        packed: bool,
        stream: bool,
    ) -> crate::status::StatusCounts {
        if level >= SimdLevel::Avx2 && !packed {
            let wide = level == SimdLevel::Avx512;
            if let Some(p) = self.f16c
                && let Some(counts) = on_x86_64!(p.run(src, dst, n, wide, stream), {
                    let _ = (p, wide, stream);
                    None
                })
            {
                return counts;
            }
            if let Some(p) = self.bf16
                && let Some(counts) = on_x86_64!(p.run(src, dst, n, wide, stream), {
                    let _ = (p, wide, stream);
                    None
                })
            {
                return counts;
            }
        }
        if level >= SimdLevel::Avx512
            && self.avx512
            && let Some((done, mut counts)) = on_x86_64!(
                crate::bulk::kernels::x86_avx512::f32_small_float::run_body(
                    &self.small_float(),
                    src,
                    dst,
                    n,
                    packed,
                    stream
                ),
                None::<(usize, crate::status::StatusCounts)>
            )
        {
            crate::bulk::kernels::plan::ran("f32-float-avx512");
            let out = if packed { done / 2 } else { done };
            let rest = self.run_per_element(&src[4 * done..], &mut dst[out..], n - done, packed);
            counts.add(&rest);
            return counts;
        }
        if level >= SimdLevel::Avx2
            && let Some((done, mut counts)) =
                on_x86_64!(self.small_float().run_body(src, dst, n, packed, stream), {
                    None::<(usize, crate::status::StatusCounts)>
                })
        {
            crate::bulk::kernels::plan::ran("f32-float-avx2");
            let out = if packed { done / 2 } else { done };
            let rest = self.run_per_element(&src[4 * done..], &mut dst[out..], n - done, packed);
            counts.add(&rest);
            return counts;
        }
        crate::bulk::kernels::plan::ran("f32-float");
        match self.mode {
            mode::NEAREST_EVEN => self.run_mode::<{ mode::NEAREST_EVEN }>(src, dst, n, packed),
            mode::NEAREST_AWAY => self.run_mode::<{ mode::NEAREST_AWAY }>(src, dst, n, packed),
            mode::FLOOR => self.run_mode::<{ mode::FLOOR }>(src, dst, n, packed),
            mode::CEIL => self.run_mode::<{ mode::CEIL }>(src, dst, n, packed),
            mode::TRUNC => self.run_mode::<{ mode::TRUNC }>(src, dst, n, packed),
            _ => self.run_mode::<{ mode::ODD }>(src, dst, n, packed),
        }
    }

    #[inline(always)]
    fn run_mode<const M: u8>(
        &self,
        src: &[u8],
        dst: &mut [u8],
        n: usize,
        packed: bool,
    ) -> crate::status::StatusCounts {
        let f = &InMode::<M, { layout::GENERIC }>(*self);
        let fixed =
            |l: u8| !packed && layout::constants(l) == Some((self.bits, self.shift, self.e0));
        if fixed(layout::BF16) {
            drive::f32_to_codes::<u16>(src, dst, n, &InMode::<M, { layout::BF16 }>(*self))
        } else if fixed(layout::F16) {
            drive::f32_to_codes::<u16>(src, dst, n, &InMode::<M, { layout::F16 }>(*self))
        } else if fixed(layout::E4M3) {
            drive::f32_to_codes::<u8>(src, dst, n, &InMode::<M, { layout::E4M3 }>(*self))
        } else if fixed(layout::E5M2) {
            drive::f32_to_codes::<u8>(src, dst, n, &InMode::<M, { layout::E5M2 }>(*self))
        } else if packed {
            drive::f32_to_nibbles(src, dst, n, f)
        } else if self.bits > 8 {
            drive::f32_to_codes::<u16>(src, dst, n, f)
        } else {
            drive::f32_to_codes::<u8>(src, dst, n, f)
        }
    }
}

impl FloatDst {
    /// Whether the AVX-512 small-float kernel casts (the bulk of) a slice at `level`.
    pub(crate) fn small_float_avx512_at(&self, level: SimdLevel, packed: bool) -> bool {
        level >= SimdLevel::Avx512
            && level.is_available()
            && self.avx512
            && self.small_float().serves_avx512(packed)
    }

    /// Whether the explicit AVX2 small-float kernel casts (the bulk of) a slice at `level`.
    pub(crate) fn small_float_at(&self, level: SimdLevel, packed: bool) -> bool {
        level >= SimdLevel::Avx2
            && level.is_available()
            && (packed || self.f16c.is_none())
            && self.small_float().serves(packed)
    }

    /// The per-element loop for the mode (the tail the AVX2 small-float kernel leaves; not
    /// [`FloatDst::run`] itself, whose recursion would keep it from being inlined into the
    /// instruction-set level's function).
    #[inline(always)]
    fn run_per_element(
        &self,
        src: &[u8],
        dst: &mut [u8],
        n: usize,
        packed: bool,
    ) -> crate::status::StatusCounts {
        match self.mode {
            mode::NEAREST_EVEN => self.run_mode::<{ mode::NEAREST_EVEN }>(src, dst, n, packed),
            mode::NEAREST_AWAY => self.run_mode::<{ mode::NEAREST_AWAY }>(src, dst, n, packed),
            mode::FLOOR => self.run_mode::<{ mode::FLOOR }>(src, dst, n, packed),
            mode::CEIL => self.run_mode::<{ mode::CEIL }>(src, dst, n, packed),
            mode::TRUNC => self.run_mode::<{ mode::TRUNC }>(src, dst, n, packed),
            _ => self.run_mode::<{ mode::ODD }>(src, dst, n, packed),
        }
    }

    /// The parameters of the AVX2 kernel for destinations of at most 8 bits.
    pub(crate) fn small_float(&self) -> SmallFloat {
        SmallFloat {
            bits: self.bits,
            shift: self.shift,
            e0: self.e0,
            min_normal: self.min_normal,
            max_code: self.max_code,
            max_abs: self.max_abs,
            mode: self.mode,
            inf: self.inf,
            overflow: self.overflow,
            nan_fixed: self.nan_fixed,
            nan_payload: self.nan_payload,
        }
    }
}

/// A [`FloatDst`] with its mode and layout (see [`layout`]) as type parameters.
struct InMode<const M: u8, const L: u8>(FloatDst);

impl<const M: u8, const L: u8> F32Element for InMode<M, L> {
    #[inline(always)]
    fn apply(&self, x: u32) -> (u32, u16) {
        self.0.convert_mode::<M, L>(x)
    }
}

impl crate::bulk::kernels::SliceKernel for FloatDst {
    #[inline(always)]
    fn cast(
        &self,
        level: SimdLevel,
        src: &[u8],
        s: crate::bulk::Storage,
        dst: &mut [u8],
        d: crate::bulk::Storage,
        n: usize,
        stream: bool,
    ) -> crate::status::StatusCounts {
        let _ = s;
        self.run(level, src, dst, n, d.is_packed(), stream)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::round::RoundMode;

    #[test]
    fn f16_and_bf16_take_their_simd_kernel_in_every_mode_and_policy_and_others_do_not() {
        let name = |f, p: CastPolicy| FloatDst::new(f, &p).and_then(|k| k.simd_name());
        for mode in RoundMode::DETERMINISTIC
            .into_iter()
            .chain([RoundMode::None])
        {
            for p in [
                CastPolicy::new(mode),
                CastPolicy::saturating(mode),
                CastPolicy::non_saturating(mode),
            ] {
                assert_eq!(name(Format::F16, p), Some("f16c"), "{p:?}");
                assert_eq!(name(Format::BF16, p), Some("f32-bf16"), "{p:?}");
                assert_eq!(name(Format::F8E5M2, p), None, "{p:?}");
            }
        }
    }
}
