//! f32 → the fnuz fp8 formats (e4m3fnuz, e5m2fnuz, e4m3b11fnuz: no Inf, no negative zero,
//! NaN = 0x80) at the AVX-512 level: the small-float loop of
//! [`crate::bulk::kernels::x86_avx512::f32_small_float`] with its fnuz rule, giving the
//! [`KeyTable`]'s results, checked against the table on every key when built. The method is
//! in `docs/kernels.md`.

use crate::bulk::kernels::flags::record_n;
use crate::bulk::kernels::mode;
use crate::bulk::kernels::portable::f32_small_float::{Fixed, SmallFloat};
use crate::bulk::kernels::table::f32_key::{KeyLoop, KeyTable};
use crate::bulk::kernels::x86_avx512::f32_small_float::run_body_fnuz;
use crate::convert::convert_with_status;
use crate::format::{Format, Kind, Specials};
use crate::policy::CastPolicy;
use crate::status::StatusCounts;

/// f32 → an fnuz format under one policy at the AVX-512 level.
#[derive(Debug)]
pub(crate) struct FnuzAvx512 {
    /// The destination's layout, mode and fixed results.
    sf: SmallFloat,
}

/// The reference's code and raw status bits of the f32 code `x`.
fn reference(x: u32, dst: Format, policy: &CastPolicy) -> Fixed {
    let r = convert_with_status(u64::from(x), Format::F32, dst, policy, 0);
    (r.code as u32, r.status.bits())
}

/// The loop's parameters for f32 → `dst` under `policy`, when `dst` is an 8-bit fnuz format
/// and the mode deterministic: the layout from the format, the results of ±Inf, NaN and
/// finite overflow (by sign) from the reference.
fn small_float(dst: Format, policy: &CastPolicy) -> Option<SmallFloat> {
    let Kind::Binary(spec) = dst.kind() else {
        return None;
    };
    if spec.specials != Specials::NanAtNegativeZero
        || !spec.signed
        || dst.bits() != 8
        || !(1..=7).contains(&spec.man_bits)
        || !(1..=127).contains(&spec.bias)
    {
        return None;
    }
    let mode = mode::of(policy.round)?;
    let pair = |x: u32| {
        [
            reference(x, dst, policy),
            reference(x | 0x8000_0000, dst, policy),
        ]
    };
    let max_abs = (dst.max_finite() as f32).to_bits();
    let sf = SmallFloat {
        bits: 8,
        shift: 23 - spec.man_bits,
        e0: (127 - spec.bias) as u32,
        min_normal: 1 << spec.man_bits,
        max_code: reference(max_abs, dst, policy).0 & 0x7F,
        max_abs,
        mode,
        inf: pair(0x7F80_0000),
        overflow: pair(0x7F7F_FFFF),
        nan_fixed: pair(0x7FC0_0000),
        nan_payload: 0,
    };
    sf.serves_avx512_fnuz().then_some(sf)
}

/// The f32 codes of every key of the table (the top 16 bits and, where the sticky bit is
/// set, low bits 1, 0x8000 and 0xFFFF), each with its table entry's key.
fn every_key() -> Vec<(u32, usize)> {
    let mut v = Vec::with_capacity(1 << 18);
    for top in 0..1u32 << 16 {
        let key = (top << 1) as usize;
        v.push((top << 16, key));
        for low in [1, 0x8000, 0xFFFF] {
            v.push(((top << 16) | low, key | 1));
        }
    }
    v
}

impl FnuzAvx512 {
    /// The loop for `table` (f32 → an fnuz format), when the machine has the AVX-512 level and
    /// the loop gives the table's codes and status counts on every key, in key order and
    /// interleaved (so that steps mix every class).
    pub(crate) fn new(table: &KeyTable) -> Option<FnuzAvx512> {
        if !crate::bulk::kernels::simd::avx512_present() {
            return None;
        }
        let k = FnuzAvx512 {
            sf: small_float(table.dst, &table.policy)?,
        };
        let keys = every_key();
        // an odd stride over 2^18 visits every element once
        let mixed: Vec<(u32, usize)> = (0..keys.len())
            .filter_map(|i| keys.get(i.wrapping_mul(40_503) % keys.len()).copied())
            .collect();
        (k.agrees(table, &keys) && k.agrees(table, &mixed)).then_some(k)
    }

    /// Whether the loop gives `table`'s codes and counts for `codes` (with their keys).
    fn agrees(&self, table: &KeyTable, codes: &[(u32, usize)]) -> bool {
        let src: Vec<u8> = codes.iter().flat_map(|(x, _)| x.to_le_bytes()).collect();
        let mut out = vec![0u8; codes.len()];
        let Some(counts) = self.run(table, &src, &mut out, codes.len(), false) else {
            return false;
        };
        let mut want = StatusCounts::default();
        let same = codes.iter().zip(&out).all(|(&(_, key), &got)| {
            let (code, status) = table.entry(key);
            record_n(status, 1, &mut want);
            u32::from(got) == code
        });
        same && counts == want
    }
}

impl KeyLoop for FnuzAvx512 {
    fn name(&self) -> &'static str {
        "f32-fnuz-avx512"
    }

    fn run(
        &self,
        table: &KeyTable,
        src: &[u8],
        dst: &mut [u8],
        n: usize,
        stream: bool,
    ) -> Option<StatusCounts> {
        let (done, mut counts) = run_body_fnuz(&self.sf, src, dst, n, stream)?;
        let (s, d) = (src.get(4 * done..4 * n)?, dst.get_mut(done..n)?);
        counts.add(&table.run(s, d, n - done, false));
        Some(counts)
    }
}
