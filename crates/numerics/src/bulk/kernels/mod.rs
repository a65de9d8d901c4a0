//! The bulk-cast kernels, and the one place that lists them: a kernel is chosen once per slice
//! ([`select`]) and then run over each chunk, at the instruction-set level chosen for the cast
//! ([`simd`]).
//!
//! | kernel | when | how |
//! |---|---|---|
//! | [`table::codes`] | source of at most 16 bits, any destination, any deterministic mode and policy | the result (code and status) of every source code, computed once by the reference routine and cached; the cast is a lookup |
//! | [`x86_avx512::table`] | the [`table::codes`] sources of at most 8 bits (one per byte, or packed 4-bit and 2-bit), destinations of 1, 2, 4 or 8 bytes or packed 4-bit and 2-bit, at the AVX-512 level | the table as byte planes in registers, looked up 64 codes at a time by VBMI permutes (`vpermt2b`, `vpermb`), zipped into codes (one `vpermt2b` and a sign flip per sign-symmetric plane); statuses of one-per-byte sources by byte compares of the source codes with each class's cubes in a pass per block, else as per-class bit planes counted by `vptestmb` and popcount |
//! | [`x86_avx2::planes`] | the [`table::codes`] sources of at most 8 bits (one per byte, or packed 4-bit), destinations of 1, 2 or 4 bytes one per element, at the AVX2 level | the same byte planes looked up 32 codes at a time by `vpshufb` (16 tables of 16 entries, the shuffle's zeroing selecting on bit 7 and blends on bits 4-6; 128 entries and a sign flip for sign-symmetric planes, and a blend for the one code of planes symmetric but for it), unpacked into codes; statuses by byte compares of the source codes with each class's cubes in a pass per block (one code per byte), else source-code compares or mark planes |
//! | [`portable::f32_float`] | f32 → signed binary floats of at most 16 bits (f16, bf16, fp8 with Inf/NaN or fn-style, fp6, fp4), every deterministic mode and policy | branchless integer rounding of the f32 code; Inf/NaN/overflow results from the reference |
//! | [`x86_avx2::f16c`] | f32 → f16, every deterministic mode and policy, at the AVX2 + F16C level (the portable level runs [`portable::f32_float`]) | `vcvtps2ph` with the mode's immediate (ties-away: the truncation of the magnitude plus half an ulp added on the f32 bits; odd: the truncation, its last bit set where the round trip differs), statuses from the round trip in vector accumulators, NaN/Inf/overflow lanes blended in ([`x86_avx2::f32_half`]) |
//! | [`x86_avx2::f32_bf16`] | f32 → bf16, every deterministic mode and policy, at the AVX2 level (the portable level runs [`portable::f32_float`]) | integer rounding of the top 16 bits on 8 lanes, packed 16 per store, statuses from the low 16 bits in vector accumulators, NaN/Inf/overflow lanes blended in ([`x86_avx2::f32_half`]) |
//! | [`x86_avx512::f32_half`] | the blocks of [`x86_avx2::f16c`] and [`x86_avx2::f32_bf16`] at the AVX-512 level | the same rounding 16 lanes per step (`vcvtps2ph` zmm, integer rounding), statuses from compare masks by masked adds; a step whose rare lanes are NaN or ±Inf blends the policy's codes in, any other rare step takes the full rule |
//! | [`x86_avx2::f32_small_float`] | the [`portable::f32_float`] destinations of at most 8 bits (e4m3fn, e5m2, fp6, fp4 packed or not), at the AVX2 level | the same rounding on 8 lanes with the layout in registers, statuses in vector counters; the last `n % 16` per element |
//! | [`x86_avx512::f32_small_float`] | the destinations of [`x86_avx2::f32_small_float`], at the AVX-512 level | 16 lanes: the magnitude scaled by a power of two from the exponent clamped at the destination's `emin` (integer ops), the rounding by an add with the mode's embedded rounding that leaves the code in the low bits, the inexact bit put in each code byte; statuses from byte compares on the 64 codes of a step, in byte counters; NaN and Inf lanes blended in within the loop, exact overflow steps by the full rule out of line; the last `n % 64` per element |
//! | [`portable::f64_src`] | f64 and i32 → the destinations of [`portable::f32_float`] | round-to-odd f32 codes (keeping every rounding decision; an i32 by way of its exact f64; at the AVX2 level and above [`x86_avx2::f64_odd`]: `vcvtpd2ps` and its exact round trip, 4 lanes per step), then that kernel; f64 blocks with a NaN or a value of at least 2^128 take the reference |
//! | [`portable::half_src`] | f16 / bf16 → the other destinations of [`portable::f32_float`] one per byte or per two bytes (fp8, fp6, fp4 unpacked, bf16 / f16), every deterministic mode and policy (checked against the table on all codes when built) | exact f32 codes per block (at the AVX2 level and above [`x86_avx2::half_src`]: `vcvtph2ps` with NaN / Inf lanes kept bit for bit, or a shift), then that kernel at the cast's level |
//! | [`x86_avx2::half_small_float`] | f16 / bf16 → the one-byte destinations of [`portable::half_src`] to nearest even, at the AVX2 level and above (faster there than the widening route at both levels) | one pass on the 16-bit codes: 32 per step rounded in place (rebias, a shift by `vpmulhuw` / `vpmullw` with a factor from a `vpshufb` table, to nearest even on the dropped bits, a `vpminuw` clamp), NaN / ±Inf / beyond-the-largest decided on the 16-bit codes and blended in by mask on every step, statuses in byte counters; the last `n % 32` by the widening route |
//! | [`portable::f32_to_int`] | f32 → 4/8/16/32-bit integers (4-bit packed or one per byte), every deterministic mode but `odd`; [`x86_avx2::f32_to_int`] at the AVX2 level, [`x86_avx512::f32_to_int`] at the AVX-512 level, for 4 to 16 bits | exact f32 round-to-integral, then the range rule, branchless (AVX-512: a clamp, status k-masks counted by `popcnt`; saturating i8/u8/4-bit: `vcvtps2dq` with embedded rounding, saturating packs; i8: one band test on the 64 bytes of a step, masks counted by `popcnt`; u8 and 4-bit: compares counted in lane counters) |
//! | [`portable::i32_to_int`] | i32 → integers of 2 to 64 bits (2- and 4-bit packed or one per byte), every deterministic mode and policy | in range the value, beyond it the bound or the low bits, out-of-range elements counted per block; branchless |
//! | [`table::f32_key`] | f32 → other formats of at most 8 bits whose rounding points lie in the f32's top 16 bits (e8m0, HiF8, fnuz fp8, small integers saturating), deterministic modes | a 2^17-entry table keyed on the top 16 bits and a sticky bit |
//! | [`x86_avx512::f32_e8m0`] | f32 → e8m0 ([`table::f32_key`]'s table), at the AVX-512 level | the exponent field plus the mode's carry from the mantissa (`(x + add) >> 23`), negative values and zero blended in, status classes as k-masks counted by `popcnt`; steps with f32 subnormals, the top binade, ±Inf or NaN go to the table ([`x86_avx512::f32_byte`]: the shared step loop, and the check against the table on every key at construction) |
//! | [`x86_avx2::f32_e8m0`] | f32 → e8m0 ([`table::f32_key`]'s table), at the AVX2 level | the AVX-512 kernel's formula on 8 lanes, 32 elements per step, classes in 32-bit lane counters; steps with f32 subnormals, the top binade, ±Inf or NaN and the last `n % 32` go to the table; checked against the table on every key at construction |
//! | [`x86_avx2::f32_key`] | the other one-byte destinations of [`table::f32_key`] (HiF8 but to nearest even, fnuz fp8, fp6 / fp4 one per byte, small saturating integers), at the AVX2 level | the table looked up 8 keys at a time by `vpgatherdd`, statuses counted per block; exact by construction |
//! | [`x86_avx2::f32_hif8`] | f32 → HiF8 to nearest even ([`table::f32_key`]'s table), at the AVX2 level | a float add of a power of two whose last place is the binade's quantum (the width by `|e| / 4`, one `vpermd`) rounds the magnitude; the code from the rounded exponent's prefix (three `vpshufb`) and the quanta count masked by the width, on packed bytes; statuses in byte counters; steps with values above 2^15, ±Inf or NaN go to the gathered table; checked against the table on every key at construction |
//! | [`x86_avx512::f32_hif8`] | f32 → HiF8 ([`table::f32_key`]'s table), at the AVX-512 level | the magnitude rounded at the binade's mantissa width (looked up by `vpermb` on the exponent) by an integer add and mask, the code from the rounded exponent's prefix (a second `vpermb`), mantissa bits and sign; values below 2^-22 blended in; steps with values above 2^15, ±Inf or NaN go to the table; classes and check as for e8m0 |
//! | [`x86_avx512::f32_fnuz`] | f32 → the fnuz fp8 formats ([`table::f32_key`]'s table: e4m3fnuz, e5m2fnuz, e4m3b11fnuz), at the AVX-512 level | the [`x86_avx512::f32_small_float`] loop with the inexact lanes in a 64-bit mask (the clamp code is 0x80) and no sign on a zero magnitude; checked against the table on every key at construction |
//! | [`x86_avx512::f32_key`] | the e8m0 and HiF8 destinations of [`table::f32_key`] where the formulas' check fails, at the AVX-512 level | per (sign, exponent) class a parameter word fitted to the table (rounding bit, base and carry codes, status ids), fetched by `vpgatherdd`; the rounding in integer ops on 16 lanes, statuses in vector counters; checked against the table on every key at construction, classes it cannot fit go to the table |
//! | [`portable::to_f32`] | f64 and i32 → f32, every deterministic mode and policy; [`x86_avx512::to_f32`] at the AVX-512 level | nearest-even f64 → f32 conversion (an i32 by way of its exact f64), then one step where the round trip shows the mode rounds the other way, branchless; at AVX-512 the hardware conversion with the mode as embedded rounding (ties-away: the truncation of the magnitude plus half an f32 unit; odd: the truncation, its last bit set where inexact), statuses from masks |
//! | [`portable::widen`] | f16 / bf16 → f32 (every policy; checked against the table on all codes); [`x86_avx512::widen`] at the AVX-512 level | exact bit arithmetic; at AVX-512 `vcvtph2ps` (f16, signalling NaNs it quiets fixed by a mask) or a shift (bf16), 32 codes per step, NaN/Inf counted from k-masks, streamed stores |
//! | [`portable::int_to_f32`] | i8 / u8 / i16 / u16 → f32 (every policy; checked against the table on all codes) | the exact value: a vectorised conversion; [`x86_avx2::int_to_f32`] at the AVX2 level (`vpmovsx`/`vpmovzx` and `vcvtdq2ps` 8 lanes at a time, 32 per step, streamed stores), at the AVX-512 level 16 lanes per step |
//! | [`portable::reference`] | everything else (other 64-bit source pairs, stochastic rounding) | [`convert_with_status`](crate::convert_with_status) per element |
//!
//! The folders say what each file needs: `portable/` (plain Rust for every target, compiled at
//! each level by [`simd::run_at`]), `table/` (the lookups), `x86_avx2/` and `x86_avx512/`
//! (explicit SIMD loops; each folder is compiled on x86_64 only, the gate written once on its
//! `mod` line). Portable code reaches those loops through [`simd::on_x86_64`]. The shared
//! pieces sit here: the plan ([`plan`]), the mode numbering ([`mode`]), the levels
//! ([`simd`]), the element drivers ([`drive`]), status counting ([`flags`]) and streamed
//! stores ([`stream`]).
//!
//! The reference routine is the definition: every other kernel is tested bit for bit (codes
//! and statuses) against it, at every instruction-set level the machine has.

pub(crate) mod bare;
pub(crate) mod drive;
pub(crate) mod flags;
pub(crate) mod mode;
pub(crate) mod plan;
pub(crate) mod portable;
pub(crate) mod simd;
#[cfg(test)]
mod skip_log;
pub(crate) mod stream;
pub(crate) mod table;
pub(crate) mod touch;
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86_avx2;
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86_avx512;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use super::{BulkOptions, Storage};
use crate::format::{Format, Kind};
use crate::policy::CastPolicy;
use crate::round::RoundMode;
use crate::status::StatusCounts;
use portable::{
    f32_float, f32_to_int, f64_src, half_src, i32_to_int, int_to_f32, reference, to_f32, widen,
};
use simd::SimdLevel;
use table::f32_key;

/// A chosen kernel for one (source storage, destination storage, policy) combination.
#[derive(Clone, Debug)]
pub(crate) enum Kernel {
    /// Lookup in the cached results of every source code.
    Table(Arc<table::codes::Table>),
    /// f32 → binary floats of at most 16 bits by integer rounding.
    F32Float(f32_float::FloatDst),
    /// f32 → f16: F16C at the AVX2 level, else as [`Kernel::F32Float`].
    F16c(f32_float::FloatDst),
    /// f32 → bf16: the AVX2 kernel, else as [`Kernel::F32Float`].
    F32Bf16(f32_float::FloatDst),
    /// f64 → binary floats of at most 16 bits: round-to-odd f32 codes, then the f32 kernel.
    F64Float(f32_float::FloatDst),
    /// i32 → binary floats of at most 16 bits: round-to-odd f32 codes, then the f32 kernel.
    I32Float(f32_float::FloatDst),
    /// f16 / bf16 → binary floats of at most 16 bits: exact f32 codes, then the f32 kernel.
    HalfFloat(half_src::HalfFloat),
    /// f32 → 8/16/32-bit integers through exact round-to-integral.
    F32ToInt(f32_to_int::IntDst),
    /// i32 → integers: the value, clamped or wrapped.
    I32Int(i32_to_int::I32Int),
    /// f32 → narrow formats through the (top 16 bits, sticky) table.
    F32Key(Arc<f32_key::KeyTable>),
    /// f64 / i32 → f32 by exact integer rounding, or the AVX-512 kernel.
    ToF32(to_f32::ToF32),
    /// f16 / bf16 → f32 by exact bit arithmetic.
    Widen(widen::Widen),
    /// i8 / u8 / i16 / u16 → f32: the exact value.
    IntToF32(int_to_f32::IntToF32),
    /// The reference routine per element.
    Reference,
}

/// The f32 → float kernel for `dst` under `policy`, built (and checked) once per combination.
fn float_kernel(dst: Format, policy: &CastPolicy) -> Option<f32_float::FloatDst> {
    type Cache = Mutex<HashMap<(Format, CastPolicy), Option<f32_float::FloatDst>>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    if let Ok(map) = cache.lock()
        && let Some(k) = map.get(&(dst, *policy))
    {
        return *k;
    }
    let k = f32_float::FloatDst::new(dst, policy);
    if let Ok(mut map) = cache.lock() {
        map.insert((dst, *policy), k);
    }
    k
}

/// The exact widening kernel for `s` → `d` (f16 / bf16 or an 8- or 16-bit integer → f32)
/// whose results are `table`'s, built (and checked against every code) once per combination.
fn widening_kernel(
    table: &table::codes::Table,
    s: Storage,
    d: Storage,
    policy: &CastPolicy,
) -> Option<Kernel> {
    type Cache = Mutex<HashMap<(Format, Format, CastPolicy), Option<Kernel>>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    let key = (s.format(), d.format(), *policy);
    if let Ok(map) = cache.lock()
        && let Some(k) = map.get(&key)
    {
        return k.clone();
    }
    let k = widen::Widen::new(s.format(), d.format(), table)
        .map(Kernel::Widen)
        .or_else(|| int_to_f32::IntToF32::new(s.format(), d.format(), table).map(Kernel::IntToF32));
    if let Ok(mut map) = cache.lock() {
        map.insert(key, k.clone());
    }
    k
}

/// The fastest kernel for a cast from `s` to `d` under `policy` (the reference routine where
/// no fast kernel serves it); [`plan::Plan`] pairs it with a level.
fn select(s: Storage, d: Storage, policy: &CastPolicy) -> Kernel {
    if policy.round == RoundMode::Hybrid {
        return Kernel::Reference;
    }
    if matches!(s.format(), Format::F64 | Format::I32)
        && d.format() == Format::F32
        && let Some(k) = to_f32::ToF32::new(
            if s.format() == Format::F64 {
                to_f32::Source::F64
            } else {
                to_f32::Source::I32
            },
            policy,
        )
    {
        return Kernel::ToF32(k);
    }
    // Packed 2-bit destinations (four per byte) go through the table or the reference.
    let storable = !d.is_packed() || d.per_byte() == 2;
    if s.format() == Format::F32
        && storable
        && let Some(k) = float_kernel(d.format(), policy)
    {
        return match k.simd_name() {
            Some("f16c") => Kernel::F16c(k),
            Some("f32-bf16") => Kernel::F32Bf16(k),
            _ => Kernel::F32Float(k),
        };
    }
    if s.format() == Format::F64
        && storable
        && let Some(k) = float_kernel(d.format(), policy)
    {
        return Kernel::F64Float(k);
    }
    if s.format() == Format::I32
        && storable
        && let Some(k) = float_kernel(d.format(), policy)
    {
        return Kernel::I32Float(k);
    }
    if s.format() == Format::I32
        && let Some(k) = i32_to_int::I32Int::new(d.format(), d.per_byte(), policy)
    {
        return Kernel::I32Int(k);
    }
    if s.format() == Format::F32
        && policy.round != RoundMode::Odd
        && (matches!(d.format().bits(), 8 | 16 | 32) || (d.format().bits() == 4 && storable))
        && let Kind::Int { signed } = d.format().kind()
    {
        let bits = d.format().bits();
        let (lo, hi) = if signed {
            (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
        } else {
            (0, (1i64 << bits) - 1)
        };
        return Kernel::F32ToInt(f32_to_int::IntDst {
            lo,
            hi,
            bytes: bits.div_ceil(8) as usize,
            bits,
            packed: d.is_packed(),
            overflow: policy.int_overflow,
            mode: policy.round,
        });
    }
    if s.format() == Format::F32
        && storable
        && let Some(t) = f32_key::KeyTable::cached(d.format(), policy)
    {
        return Kernel::F32Key(t);
    }
    if !s.is_packed()
        && !d.is_packed()
        && let Some(k) = half_src::HalfFloat::cached(s.format(), d.format(), policy)
    {
        return Kernel::HalfFloat(k);
    }
    match table::codes::Table::cached(s.format(), d.format(), policy) {
        Some(t) if !s.is_packed() && !d.is_packed() => {
            widening_kernel(&t, s, d, policy).unwrap_or(Kernel::Table(t))
        }
        Some(t) => Kernel::Table(t),
        None => Kernel::Reference,
    }
}

/// A fast kernel's cast of one slice (`n` elements of `src` in storage `s` into `dst` in
/// storage `d`, both already checked for size).
pub(crate) trait SliceKernel {
    /// Casts the slice and counts the statuses; `#[inline(always)]` in every implementation.
    /// With `stream` the destination starts on a 64-byte boundary and is large: a kernel with
    /// non-temporal stores uses them ([`stream`]); the others ignore it.
    #[allow(clippy::too_many_arguments)]
    fn cast(
        &self,
        level: SimdLevel,
        src: &[u8],
        s: Storage,
        dst: &mut [u8],
        d: Storage,
        n: usize,
        stream: bool,
    ) -> StatusCounts;
}

/// A slice cast by one kernel, as a [`simd::Job`].
struct SliceJob<'a, K> {
    level: SimdLevel,
    kernel: &'a K,
    src: &'a [u8],
    s: Storage,
    dst: &'a mut [u8],
    d: Storage,
    n: usize,
    stream: bool,
}

impl<K: SliceKernel> simd::Job for SliceJob<'_, K> {
    type Output = StatusCounts;
    #[inline(always)]
    fn run(self) -> StatusCounts {
        self.kernel.cast(
            self.level,
            self.src,
            self.s,
            self.dst,
            self.d,
            self.n,
            self.stream,
        )
    }
}

/// Runs a fast kernel on one slice at `level`, its output streamed past the cache from the
/// first 64-byte boundary on when it has at least `stream_threshold` bytes ([`stream::split`]).
#[allow(clippy::too_many_arguments)]
fn fast<K: SliceKernel>(
    level: SimdLevel,
    kernel: &K,
    src: &[u8],
    s: Storage,
    dst: &mut [u8],
    d: Storage,
    n: usize,
    stream_threshold: usize,
) -> StatusCounts {
    stream::split(
        s,
        d,
        src,
        dst,
        n,
        stream_threshold,
        |src, dst, n, stream| {
            let job = SliceJob {
                level,
                kernel,
                src,
                s,
                dst,
                d,
                n,
                stream,
            };
            simd::run_at(level, job)
        },
    )
}

impl Kernel {
    /// Casts elements `0..n` of the sub-buffers at `level`; `start` is their global index
    /// offset.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn run(
        &self,
        level: SimdLevel,
        src: &[u8],
        s: Storage,
        dst: &mut [u8],
        d: Storage,
        start: usize,
        n: usize,
        policy: &CastPolicy,
        options: &BulkOptions,
    ) -> StatusCounts {
        let st = options.stream_threshold;
        match self {
            Kernel::Table(t) => fast(level, &**t, src, s, dst, d, n, st),
            Kernel::F32Float(k) | Kernel::F16c(k) | Kernel::F32Bf16(k) => {
                fast(level, k, src, s, dst, d, n, st)
            }
            Kernel::F64Float(k) | Kernel::I32Float(k) => {
                let f32s = Storage::native(Format::F32);
                let source = if matches!(self, Kernel::I32Float(_)) {
                    f64_src::WideSource::I32
                } else {
                    f64_src::WideSource::F64
                };
                plan::ran(self.name());
                f64_src::F64Float::run(
                    level,
                    source,
                    src,
                    dst,
                    n,
                    |i| d.bytes_for(i),
                    |x, y, m| fast(level, k, x, f32s, y, d, m, st),
                    |x, y, at, m| reference::run(x, s, y, d, start + at, m, policy, options),
                )
            }
            Kernel::HalfFloat(k) => fast(level, k, src, s, dst, d, n, st),
            Kernel::F32ToInt(k) => fast(level, k, src, s, dst, d, n, st),
            Kernel::I32Int(k) => {
                plan::ran(self.name());
                fast(level, k, src, s, dst, d, n, st)
            }
            Kernel::F32Key(t) => fast(level, &**t, src, s, dst, d, n, st),
            Kernel::Widen(k) => fast(level, k, src, s, dst, d, n, st),
            Kernel::IntToF32(k) => fast(level, k, src, s, dst, d, n, st),
            Kernel::ToF32(k) => fast(level, k, src, s, dst, d, n, st),
            Kernel::Reference => {
                plan::ran(self.name());
                reference::run(src, s, dst, d, start, n, policy, options)
            }
        }
    }

    /// Short name, for benchmarks and tests.
    pub(crate) const fn name(&self) -> &'static str {
        match self {
            Kernel::Table(_) => "table",
            Kernel::F32Float(_) => "f32-float",
            Kernel::F16c(_) => "f16c",
            Kernel::F32Bf16(_) => "f32-bf16",
            Kernel::F32Key(_) => "f32-key",
            Kernel::F64Float(_) => "f64-float",
            Kernel::I32Float(_) => "i32-float",
            Kernel::HalfFloat(_) => "half-float",
            Kernel::F32ToInt(_) => "f32-int",
            Kernel::I32Int(_) => "i32-int",
            Kernel::Widen(_) => "widen",
            Kernel::IntToF32(_) => "int-f32",
            Kernel::ToF32(k) => k.name(),
            Kernel::Reference => "reference",
        }
    }

    /// Short name of the code that casts the bulk of a slice of storage `d` at `level`: the
    /// SIMD-only kernels ([`f16c`], [`f32_bf16`]) run the portable [`f32_float`] loop below the
    /// AVX2 level or on a machine without it, and `-avx2` marks where an explicit AVX2 kernel
    /// takes over from [`f32_float`] or [`f32_to_int`] (so that tests catch a silent fallback).
    pub(crate) fn name_at(&self, level: SimdLevel, s: Storage, d: Storage) -> &'static str {
        match self {
            Kernel::F16c(_) | Kernel::F32Bf16(_)
                if level < SimdLevel::Avx2 || !level.is_available() =>
            {
                "f32-float"
            }
            Kernel::F16c(_) if level == SimdLevel::Avx512 => "f16c-avx512",
            Kernel::F32Bf16(_) if level == SimdLevel::Avx512 => "f32-bf16-avx512",
            Kernel::F32Float(k) if k.small_float_avx512_at(level, d.is_packed()) => {
                "f32-float-avx512"
            }
            Kernel::F32Float(k) if k.small_float_at(level, d.is_packed()) => "f32-float-avx2",
            Kernel::F32ToInt(k) if k.avx512_at(level) => "f32-int-avx512",
            Kernel::F32ToInt(k) if k.avx2_at(level) => "f32-int-avx2",
            Kernel::Table(t) if t.avx512_at(level, d) => "table-avx512",
            Kernel::Table(t) if t.avx2_at(level, s, d) => "table-avx2",
            Kernel::F32Key(t) if t.avx512_at(level, d) => t.avx512_name(),
            Kernel::F32Key(t) if t.avx2_at(level, d) => t.avx2_name(),
            Kernel::ToF32(k) => k.name_at(level),
            Kernel::IntToF32(k) => k.name_at(level),
            Kernel::Widen(_) if level.runs_avx512() => "widen-avx512",
            Kernel::HalfFloat(k) if k.fp8_at(level) => "half-float-fp8-avx2",
            Kernel::HalfFloat(_) if half_src::HalfFloat::avx2_at(level) => "half-float-avx2",
            _ => self.name(),
        }
    }
}
