//! f32 → e8m0 and HiF8 at the AVX-512 level where the formulas' check fails: the
//! [`crate::bulk::kernels::table::f32_key`] table's results computed 16 lanes at a time from
//! one 32-bit parameter word per (sign, exponent) class, fitted to the table and checked
//! against it on every key. The method is in `docs/kernels.md`.

use crate::bulk::kernels::mode;
use crate::bulk::kernels::table::f32_key::{KeyLoop, KeyTable};
use crate::bulk::kernels::x86_avx512::f32_e8m0::E8m0Avx512;
use crate::bulk::kernels::x86_avx512::f32_fnuz::FnuzAvx512;
use crate::bulk::kernels::x86_avx512::f32_hif8::HiF8Avx512;
use crate::format::{Format, Kind, Specials};
use crate::round::RoundMode;
use crate::status::{Status, StatusCounts};

/// An AVX-512 kernel that gives a [`KeyTable`]'s results.
#[derive(Debug)]
pub(crate) enum Avx512 {
    /// The e8m0 formula.
    E8m0(E8m0Avx512),
    /// The HiF8 formula.
    HiF8(HiF8Avx512),
    /// The small-float loop's fnuz rule (e4m3fnuz, e5m2fnuz, e4m3b11fnuz).
    Fnuz(FnuzAvx512),
    /// Per-class parameter words, fetched by a gather (where a formula's check fails).
    Gather(KeyAvx512),
}

impl Avx512 {
    /// The kernel for `table`: the destination's formula, else the gather kernel.
    fn new(table: &KeyTable) -> Option<Avx512> {
        let p = &table.policy;
        let formula = match table.dst.kind() {
            Kind::HiF8 => HiF8Avx512::new(p, table).map(Avx512::HiF8),
            _ if table.dst == Format::F8E8M0 => E8m0Avx512::new(p, table).map(Avx512::E8m0),
            Kind::Binary(spec) if spec.specials == Specials::NanAtNegativeZero => {
                FnuzAvx512::new(table).map(Avx512::Fnuz)
            }
            _ => None,
        };
        formula.or_else(|| KeyAvx512::new(table.dst, p.round, table).map(Avx512::Gather))
    }
}

impl KeyLoop for Avx512 {
    fn name(&self) -> &'static str {
        match self {
            Avx512::E8m0(_) => "f32-e8m0-avx512",
            Avx512::HiF8(_) => "f32-hif8-avx512",
            Avx512::Fnuz(k) => k.name(),
            Avx512::Gather(_) => "f32-key-avx512",
        }
    }

    fn run(
        &self,
        table: &KeyTable,
        src: &[u8],
        dst: &mut [u8],
        n: usize,
        stream: bool,
    ) -> Option<StatusCounts> {
        match self {
            Avx512::E8m0(k) => k.run(table, src, dst, n, stream),
            Avx512::HiF8(k) => k.run(table, src, dst, n, stream),
            Avx512::Fnuz(k) => k.run(table, src, dst, n, stream),
            Avx512::Gather(k) => k.run(table, src, dst, n, stream),
        }
    }
}

/// The AVX-512 loop for `table`'s results (e8m0, HiF8 and fnuz fp8 on a machine with the level), built
/// and checked against the table; `None` where there is none.
pub(crate) fn loop_for(table: &KeyTable) -> Option<Box<dyn KeyLoop>> {
    Avx512::new(table).map(|k| Box::new(k) as Box<dyn KeyLoop>)
}

/// Elements per step (four vectors of 16).
const STEP: usize = 64;
/// Classes: 2 signs × 256 exponents, and NaN.
const CLASSES: usize = 513;
/// The class of every NaN.
const NAN_CLASS: u32 = 512;
/// The status id of a class that no parameter set fits.
const IRREGULAR: u32 = 15;
/// The `k` of a class whose result does not depend on its significand.
const K_CONST: u32 = 15;
/// Field width of the status counters; a field takes at most `FOLD_STEPS × 4` adds.
const FIELD: u32 = 6;
/// Steps between two folds of the status counters (4 adds per step, below 2^FIELD).
const FOLD_STEPS: usize = 15;

/// The parameters of f32 → e8m0 or HiF8 under one policy at the AVX-512 level.
#[derive(Debug)]
pub(crate) struct KeyAvx512 {
    /// Per class: `base` (bits 0-7), `carry` (8-15), `k` (16-19), status ids exact (20-23),
    /// inexact (24-27), carried (28-31).
    params: Box<[u32; CLASSES]>,
    /// Per status id: flags 0-4 in 6-bit fields.
    spread_lo: [u32; 16],
    /// Per status id: flags 5-8 and "exact" in 6-bit fields.
    spread_hi: [u32; 16],
    /// The rounding mode.
    mode: u8,
    /// Whether the sign decides `floor` / `ceil` (false for e8m0, which rounds magnitudes).
    signed: bool,
}

/// The kept units, cut-off class and decision of the scalar model (used to fit parameters).
fn model_up(mode: u8, negative: bool, sig: u32, k: u32, base: u32) -> (u32, bool, bool) {
    let t = sig >> k;
    let rem = sig & ((1 << k) - 1);
    let half = (1u32 << k) >> 1;
    let lsb_odd = t != 0 && (base.wrapping_add(t) & 1) == 1;
    let nz = rem != 0;
    let up = match mode {
        mode::NEAREST_EVEN => rem > half || (rem == half && lsb_odd),
        mode::NEAREST_AWAY => rem >= half,
        mode::FLOOR => negative && nz,
        mode::CEIL => !negative && nz,
        mode::ODD => nz && !lsb_odd,
        _ => false,
    };
    (t + u32::from(up), nz, (t + u32::from(up)) << k >= 512)
}

/// The table entry (code, raw status) of `top16` and `sticky`.
fn entry(table: &KeyTable, top16: u32, sticky: u32) -> (u32, u16) {
    use crate::bulk::kernels::drive::F32Element;
    table.apply((top16 << 16) | sticky)
}

/// Counts one result of raw status `s`.
fn record(counts: &mut StatusCounts, s: u16) {
    counts.total += 1;
    counts.exact += u64::from(s & (Status::INEXACT | Status::INVALID).bits() == 0);
    for (j, (flag, _)) in Status::NAMED.iter().enumerate() {
        counts.flags[j] += u64::from(s & flag.bits() != 0);
    }
}

/// The status ids found so far.
struct Ids(Vec<u16>);

impl Ids {
    /// The id of `s`, added if new; `None` past 15 statuses.
    fn of(&mut self, s: u16) -> Option<u32> {
        if let Some(i) = self.0.iter().position(|&x| x == s) {
            return Some(i as u32);
        }
        if self.0.len() >= IRREGULAR as usize {
            return None;
        }
        self.0.push(s);
        Some(self.0.len() as u32 - 1)
    }
}

/// The parameter word of class `c` (sign and exponent) with rounding bit `k`, if it
/// reproduces the class's 256 table entries (NaN keys excluded: they form their own class).
fn fit(table: &KeyTable, c: u32, k: u32, kernel: &KeyAvx512, ids: &mut Ids) -> Option<u32> {
    let e = c & 0xFF;
    let negative = kernel.signed && c >> 8 == 1;
    let keys = || {
        (0..256u32)
            .filter(move |u| e != 0xFF || *u == 0)
            .map(move |u| {
                let sig = (u32::from(e != 0) << 8) | u;
                let (code, st) = entry(table, (c << 7) | (u >> 1), u & 1);
                (sig, code & 0xFF, st)
            })
    };
    // base: from an exact key (n = t), else from a key that keeps t = 0.
    let mut base = None;
    for (sig, code, _) in keys() {
        let (n, nz, carry) = model_up(kernel.mode, negative, sig, k, 0);
        let t = sig >> k;
        if !nz {
            base = Some(code.wrapping_sub(t) & 0xFF);
            break;
        }
        if t == 0 && n == 0 && !carry && base.is_none() {
            base = Some(code);
        }
    }
    let base = base.unwrap_or(0);
    let (mut carry_code, mut st) = (None, [None::<u16>; 3]);
    for (sig, code, s) in keys() {
        let (n, nz, carry) = model_up(kernel.mode, negative, sig, k, base);
        let which = if carry { 2 } else { usize::from(nz) };
        let expect = if carry {
            *carry_code.get_or_insert(code)
        } else {
            base.wrapping_add(n) & 0xFF
        };
        if expect != code || *st[which].get_or_insert(s) != s {
            return None;
        }
    }
    let mut word = base | (carry_code.unwrap_or(0) << 8) | (k << 16);
    for (i, s) in st.iter().enumerate() {
        let id = match s {
            Some(s) => ids.of(*s)?,
            None => 0,
        };
        word |= id << (20 + 4 * i);
    }
    Some(word)
}

impl KeyAvx512 {
    /// The kernel for f32 → `dst` whose results are `table`'s, when `dst` is e8m0 or HiF8, the
    /// mode deterministic, the kernels may use the AVX-512 level, and the fitted parameters
    /// reproduce the table on every key.
    pub(crate) fn new(dst: Format, mode: RoundMode, table: &KeyTable) -> Option<KeyAvx512> {
        if !crate::bulk::kernels::simd::avx512_present() {
            return None;
        }
        let k = KeyAvx512::fitted(dst, mode, table)?;
        k.check(table).then_some(k)
    }

    /// The parameters fitted to `table` for f32 → `dst` in `mode` (e8m0 or HiF8, a
    /// deterministic mode), not yet checked against it: plain integer work that needs no
    /// CPU feature, so that the fitting is tested on every machine.
    fn fitted(dst: Format, mode: RoundMode, table: &KeyTable) -> Option<KeyAvx512> {
        let signed = match dst.kind() {
            Kind::HiF8 => true,
            _ if dst == Format::F8E8M0 => false,
            _ => return None,
        };
        let mode = mode::of(mode)?;
        let mut k = KeyAvx512 {
            params: Box::new([0; CLASSES]),
            spread_lo: [0; 16],
            spread_hi: [0; 16],
            mode,
            signed,
        };
        let mut ids = Ids(Vec::new());
        for c in 0..512u32 {
            let word = (1..=9)
                .chain([K_CONST])
                .find_map(|kk| fit(table, c, kk, &k, &mut ids));
            k.params[c as usize] = word.unwrap_or((IRREGULAR * 0x111) << 20);
        }
        // Every NaN must give one result.
        let (code, s) = entry(table, 0x7FC0, 0);
        let nan_keys = [
            (0x7F80, 1),
            (0x7F81, 0),
            (0xFFC0, 0),
            (0xFFFF, 1),
            (0x7FBF, 1),
        ];
        if nan_keys
            .iter()
            .any(|&(t, st)| entry(table, t, st) != (code, s))
        {
            return None;
        }
        let id = ids.of(s)?;
        k.params[NAN_CLASS as usize] =
            (code & 0xFF) | ((code & 0xFF) << 8) | (K_CONST << 16) | ((id * 0x111) << 20);
        for (i, &s) in ids.0.iter().enumerate() {
            let exact = s & (Status::INEXACT | Status::INVALID).bits() == 0;
            for (j, (flag, _)) in Status::NAMED.iter().enumerate() {
                if s & flag.bits() != 0 {
                    if j < 5 {
                        k.spread_lo[i] |= 1 << (FIELD * j as u32);
                    } else {
                        k.spread_hi[i] |= 1 << (FIELD * (j as u32 - 5));
                    }
                }
            }
            if exact {
                k.spread_hi[i] |= 1 << (FIELD * 4);
            }
        }
        Some(k)
    }

    /// Whether the kernel gives the table's code and status on every key (a 64-key block
    /// counted as a whole: the sum of its statuses must match too).
    fn check(&self, table: &KeyTable) -> bool {
        let xs: Vec<u32> = (0..1u32 << 17)
            .map(|key| ((key >> 1) << 16) | (key & 1))
            .collect();
        let src: Vec<u8> = xs.iter().flat_map(|x| x.to_le_bytes()).collect();
        let mut dst = vec![0u8; xs.len()];
        let Some(got) = self.run(table, &src, &mut dst, xs.len(), false) else {
            return false;
        };
        let mut want = StatusCounts::default();
        for (x, &c) in xs.iter().zip(&dst) {
            let (code, s) = entry(table, x >> 16, x & 1);
            if code as u8 != c {
                return false;
            }
            record(&mut want, s);
        }
        got == want
    }

    /// Casts `n` little-endian f32 codes into one byte each; `None` without the AVX-512
    /// level. The last `n % 64` elements, and any step with a lane of an irregular class, go
    /// through `table`.
    pub(crate) fn run(
        &self,
        table: &KeyTable,
        src: &[u8],
        dst: &mut [u8],
        n: usize,
        stream: bool,
    ) -> Option<StatusCounts> {
        if crate::bulk::kernels::simd::avx512_present() {
            let body = n / STEP * STEP;
            let (s, t) = (&src[..4 * n], &mut dst[..n]);
            // SAFETY: the CPU has every feature of the AVX-512 level (checked just above);
            // `body` is a multiple of STEP within both slices.
            let mut counts = unsafe {
                match self.mode {
                    mode::NEAREST_EVEN => {
                        cast::<{ mode::NEAREST_EVEN }>(self, table, s, t, body, stream)
                    }
                    mode::NEAREST_AWAY => {
                        cast::<{ mode::NEAREST_AWAY }>(self, table, s, t, body, stream)
                    }
                    mode::FLOOR => cast::<{ mode::FLOOR }>(self, table, s, t, body, stream),
                    mode::CEIL => cast::<{ mode::CEIL }>(self, table, s, t, body, stream),
                    mode::TRUNC => cast::<{ mode::TRUNC }>(self, table, s, t, body, stream),
                    _ => cast::<{ mode::ODD }>(self, table, s, t, body, stream),
                }
            };
            counts.add(&table.run(&s[4 * body..], &mut t[body..], n - body, false));
            return Some(counts);
        }
        let _ = (table, src, dst, n, stream);
        None
    }
}

use std::arch::x86_64::*;

/// The codes (in the low byte of each lane) and status ids of 16 f32 codes `x` in mode `M`
/// (0 rint, 1 round, 2 floor, 3 ceil, 4 trunc, 5 odd).
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline]
fn lanes<const M: u8>(k: &KeyAvx512, x: __m512i) -> (__m512i, __m512i) {
    let one = _mm512_set1_epi32(1);
    let nan = _mm512_cmpgt_epu32_mask(
        _mm512_and_si512(x, _mm512_set1_epi32(0x7FFF_FFFF)),
        _mm512_set1_epi32(0x7F80_0000),
    );
    let c = _mm512_mask_mov_epi32(
        _mm512_srli_epi32::<23>(x),
        nan,
        _mm512_set1_epi32(NAN_CLASS as i32),
    );
    // SAFETY: every index is below CLASSES (9 bits, or NAN_CLASS), within `params`.
    let p = unsafe { _mm512_i32gather_epi32::<4>(c, k.params.as_ptr().cast()) };
    let sig = _mm512_and_si512(_mm512_srli_epi32::<15>(x), _mm512_set1_epi32(0x1FE));
    let sig = _mm512_mask_or_epi32(
        sig,
        _mm512_test_epi32_mask(x, _mm512_set1_epi32(0xFFFF)),
        sig,
        one,
    );
    let sig = _mm512_mask_or_epi32(
        sig,
        _mm512_test_epi32_mask(x, _mm512_set1_epi32(0x7F80_0000)),
        sig,
        _mm512_set1_epi32(0x100),
    );
    let kk = _mm512_and_si512(_mm512_srli_epi32::<16>(p), _mm512_set1_epi32(0xF));
    let t = _mm512_srlv_epi32(sig, kk);
    let unit = _mm512_sllv_epi32(one, kk);
    let rem = _mm512_sub_epi32(sig, _mm512_sllv_epi32(t, kk));
    let half = _mm512_srli_epi32::<1>(unit);
    let nz = _mm512_test_epi32_mask(rem, rem);
    let base = _mm512_and_si512(p, _mm512_set1_epi32(0xFF));
    let lsb_odd = || {
        _mm512_mask_test_epi32_mask(_mm512_test_epi32_mask(t, t), _mm512_add_epi32(base, t), one)
    };
    let negative = || {
        if k.signed { _mm512_movepi32_mask(x) } else { 0 }
    };
    let up: __mmask16 = match M {
        mode::NEAREST_EVEN => {
            _mm512_cmpgt_epu32_mask(rem, half) | (_mm512_cmpeq_epi32_mask(rem, half) & lsb_odd())
        }
        mode::NEAREST_AWAY => _mm512_cmpge_epu32_mask(rem, half),
        mode::FLOOR => nz & negative(),
        mode::CEIL => nz & !negative(),
        mode::ODD => nz & !lsb_odd(),
        _ => 0,
    };
    let n = _mm512_mask_add_epi32(t, up, t, one);
    let carry = _mm512_cmpge_epu32_mask(_mm512_sllv_epi32(n, kk), _mm512_set1_epi32(512));
    let code = _mm512_mask_mov_epi32(_mm512_add_epi32(base, n), carry, _mm512_srli_epi32::<8>(p));
    let shift = _mm512_mask_mov_epi32(_mm512_setzero_si512(), nz, _mm512_set1_epi32(4));
    let shift = _mm512_mask_mov_epi32(shift, carry, _mm512_set1_epi32(8));
    let id = _mm512_and_si512(
        _mm512_srlv_epi32(_mm512_srli_epi32::<20>(p), shift),
        _mm512_set1_epi32(0xF),
    );
    (code, id)
}

/// The sum of the 6-bit field `j` over the lanes of `acc`.
#[target_feature(enable = "avx512f")]
#[inline]
fn field(acc: __m512i, j: u32) -> u64 {
    let f = _mm512_and_si512(
        _mm512_srlv_epi32(acc, _mm512_set1_epi32((FIELD * j) as i32)),
        _mm512_set1_epi32((1 << FIELD) - 1),
    );
    _mm512_reduce_add_epi32(f) as u32 as u64
}

/// Adds the counters' fields to `counts` (flags and exact; not the total).
#[target_feature(enable = "avx512f")]
#[inline]
fn fold(lo: __m512i, hi: __m512i, counts: &mut StatusCounts) {
    for j in 0..5 {
        counts.flags[j as usize] += field(lo, j);
    }
    for j in 0..4 {
        counts.flags[5 + j as usize] += field(hi, j);
    }
    counts.exact += field(hi, 4);
}

/// The cast of `n` (a multiple of [`STEP`]) elements in mode `M` (see [`lanes`]); with
/// `stream` the 64-byte code blocks are stored non-temporally.
///
/// # Safety
/// The CPU must support AVX-512 F, BW, VL, DQ and VBMI; `src` must hold `4 n` bytes and `dst`
/// `n`, `dst` 64-byte aligned with `stream`.
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
unsafe fn cast<const M: u8>(
    k: &KeyAvx512,
    table: &KeyTable,
    src: &[u8],
    dst: &mut [u8],
    n: usize,
    stream: bool,
) -> StatusCounts {
    use crate::bulk::kernels::stream::prefetch;
    use crate::bulk::kernels::x86_avx512::store::store64;
    let mut counts = StatusCounts::default();
    // SAFETY: both tables hold 16 dwords.
    let (spread_lo, spread_hi) = unsafe {
        (
            _mm512_loadu_epi32(k.spread_lo.as_ptr().cast()),
            _mm512_loadu_epi32(k.spread_hi.as_ptr().cast()),
        )
    };
    let (mut lo, mut hi) = (_mm512_setzero_si512(), _mm512_setzero_si512());
    let mut since_fold = 0;
    for (x, y) in src[..4 * n]
        .chunks_exact(4 * STEP)
        .zip(dst[..n].chunks_exact_mut(STEP))
    {
        let mut codes = [_mm512_setzero_si512(); 4];
        let mut ids = [_mm512_setzero_si512(); 4];
        let mut odd: __mmask16 = 0;
        for i in 0..4 {
            let p = x[64 * i..].as_ptr();
            prefetch(p);
            // SAFETY: `x` holds 256 bytes, so 64 from `64 i`.
            let v = unsafe { _mm512_loadu_si512(p.cast()) };
            (codes[i], ids[i]) = lanes::<M>(k, v);
            odd |= _mm512_cmpeq_epi32_mask(ids[i], _mm512_set1_epi32(IRREGULAR as i32));
        }
        if odd != 0 {
            counts.add(&table.run(x, y, STEP, false));
            continue;
        }
        let mut slo = _mm512_permutexvar_epi32(ids[0], spread_lo);
        let mut shi = _mm512_permutexvar_epi32(ids[0], spread_hi);
        for id in &ids[1..] {
            slo = _mm512_add_epi32(slo, _mm512_permutexvar_epi32(*id, spread_lo));
            shi = _mm512_add_epi32(shi, _mm512_permutexvar_epi32(*id, spread_hi));
        }
        lo = _mm512_add_epi32(lo, slo);
        hi = _mm512_add_epi32(hi, shi);
        counts.total += STEP as u64;
        let b = [0, 1, 2, 3].map(|i| _mm512_cvtepi32_epi8(codes[i]));
        let z = _mm512_inserti64x4::<1>(
            _mm512_castsi256_si512(_mm256_set_m128i(b[1], b[0])),
            _mm256_set_m128i(b[3], b[2]),
        );
        // SAFETY: `y` holds 64 bytes; with `stream` it starts on a 64-byte boundary (`dst`
        // does and every step is 64 bytes).
        unsafe { store64(y.as_mut_ptr(), z, stream) };
        since_fold += 1;
        if since_fold == FOLD_STEPS {
            fold(lo, hi, &mut counts);
            (lo, hi, since_fold) = (_mm512_setzero_si512(), _mm512_setzero_si512(), 0);
        }
    }
    fold(lo, hi, &mut counts);
    counts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::CastPolicy;

    /// The classes no parameter word fits, as (sign, unbiased exponent); where the kernels
    /// may use the AVX-512 level, the fitted words also pass the check against the table
    /// (the kernel is built).
    fn irregular(dst: Format, policy: &CastPolicy) -> Vec<(u32, i32)> {
        let t = KeyTable::cached(dst, policy).expect("e8m0 and HiF8 have a key table");
        let k = KeyAvx512::fitted(dst, policy.round, &t).expect("a deterministic mode");
        if crate::bulk::kernels::simd::avx512_present() {
            assert!(k.check(&t), "{dst} {policy:?}");
            assert!(KeyAvx512::new(dst, policy.round, &t).is_some());
        }
        (0..512u32)
            .filter(|&c| k.params[c as usize] >> 20 == IRREGULAR * 0x111)
            .map(|c| (c >> 8, (c & 0xFF) as i32 - 127))
            .collect()
    }

    /// The parameter words fit every class but the few the method cannot express: f32
    /// subnormals into e8m0 (0 and 2^-127 share a code, with different statuses) and HiF8's
    /// top binade (a finite maximum at its start), on the sides where the mode can reach them.
    /// The fitting needs no CPU feature and is checked on every machine; the check of the
    /// fitted words against the table runs them, at the AVX-512 level only.
    #[test]
    fn every_class_but_the_edge_ones_is_fitted() {
        crate::bulk::kernels::simd::level_here(crate::bulk::kernels::simd::SimdLevel::Avx512);
        for mode in RoundMode::DETERMINISTIC {
            for p in [CastPolicy::new(mode), CastPolicy::saturating(mode)] {
                let e8 = irregular(Format::F8E8M0, &p);
                assert!(
                    e8 == [(0, -127), (1, -127)] || e8 == [(0, -127)],
                    "{p:?} {e8:?}"
                );
                let hi = irregular(Format::HiF8, &p);
                assert!(hi.iter().all(|&(_, e)| e == 15), "{p:?} {hi:?}");
            }
        }
    }
}
