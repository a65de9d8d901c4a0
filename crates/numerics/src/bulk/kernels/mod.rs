//! The bulk-cast kernels, and the one place that lists them: a kernel is chosen once per slice
//! ([`select`]) and then run over each chunk.
//!
//! | kernel | when | how |
//! |---|---|---|
//! | [`table`] | source of at most 16 bits, any destination, any deterministic mode and policy | the result (code and status) of every source code, computed once by the reference routine and cached; the cast is a lookup |
//! | [`f32_to_16`] | f32 → f16 / bf16, `rint` (or `none`) with the IEEE default policy | bit arithmetic on the f32 code |
//! | [`f32_key`] | f32 → formats of at most 8 bits whose rounding points lie in the f32's top 16 bits (fp8, fp6, fp4, e8m0, HiF8, small integers saturating), deterministic modes | a 2^17-entry table keyed on the top 16 bits and a sticky bit |
//! | [`f32_to_int`] | f32 → 8/16/32-bit integers, every deterministic mode but `odd` | the host's exact f32 round-to-integral, then the range rule |
//! | [`reference`] | everything else (32/64-bit sources, stochastic rounding) | [`convert_with_status`](crate::convert_with_status) per element |
//!
//! The reference routine is the definition: every other kernel is tested bit for bit (codes
//! and statuses) against it.

pub(crate) mod f32_key;
pub(crate) mod f32_to_16;
pub(crate) mod f32_to_int;
pub(crate) mod reference;
pub(crate) mod table;

use std::sync::Arc;

use super::{BulkOptions, Storage};
use crate::format::{Format, Kind};
use crate::policy::{CastPolicy, InfRule, NanRule, Overflow};
use crate::round::RoundMode;
use crate::status::{Status, StatusCounts};

/// A chosen kernel for one (source storage, destination storage, policy) combination.
#[derive(Clone, Debug)]
pub(crate) enum Kernel {
    /// Lookup in the cached results of every source code.
    Table(Arc<table::Table>),
    /// f32 → f16 / bf16 round-to-nearest-even, IEEE overflow.
    F32To16(f32_to_16::Half),
    /// f32 → 8/16/32-bit integers through the host's exact round-to-integral.
    F32ToInt(f32_to_int::IntDst),
    /// f32 → narrow formats through the (top 16 bits, sticky) table.
    F32Key(Arc<f32_key::KeyTable>),
    /// The reference routine per element.
    Reference,
}

/// Which kernel to use. `force_reference` skips the fast kernels (tests compare the two).
pub(crate) fn select(s: Storage, d: Storage, policy: &CastPolicy, force_reference: bool) -> Kernel {
    if force_reference || policy.round == RoundMode::Hybrid {
        return Kernel::Reference;
    }
    let nearest_even_ieee = matches!(policy.round, RoundMode::Rint | RoundMode::None)
        && policy.overflow == Overflow::Ieee
        && policy.inf == InfRule::Keep
        && policy.nan == NanRule::Keep;
    if s.format() == Format::F32 && nearest_even_ieee {
        match d.format() {
            Format::F16 => return Kernel::F32To16(f32_to_16::Half::F16),
            Format::BF16 => return Kernel::F32To16(f32_to_16::Half::BF16),
            _ => {}
        }
    }
    if s.format() == Format::F32
        && policy.round != RoundMode::Odd
        && matches!(d.format().bits(), 8 | 16 | 32)
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
            bytes: (bits / 8) as usize,
            overflow: policy.int_overflow,
            mode: policy.round,
        });
    }
    if s.format() == Format::F32
        && let Some(t) = f32_key::KeyTable::cached(d.format(), policy)
    {
        return Kernel::F32Key(t);
    }
    match table::Table::cached(s.format(), d.format(), policy) {
        Some(t) => Kernel::Table(t),
        None => Kernel::Reference,
    }
}

/// The index of `status` in the distinct statuses of a lookup table (added if new); `None`
/// when a byte cannot index them any more.
pub(crate) fn intern_status(statuses: &mut Vec<Status>, status: Status) -> Option<u8> {
    let id = match statuses.iter().position(|s| *s == status) {
        Some(i) => i,
        None => {
            statuses.push(status);
            statuses.len() - 1
        }
    };
    u8::try_from(id).ok()
}

impl Kernel {
    /// Casts elements `0..n` of the sub-buffers; `start` is their global index offset.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn run(
        &self,
        src: &[u8],
        s: Storage,
        dst: &mut [u8],
        d: Storage,
        start: usize,
        n: usize,
        policy: &CastPolicy,
        options: &BulkOptions,
    ) -> StatusCounts {
        match self {
            Kernel::Table(t) => t.run(src, s, dst, d, n),
            Kernel::F32To16(which) => f32_to_16::run(*which, src, dst, n),
            Kernel::F32ToInt(int) => f32_to_int::run(int, src, dst, n).finish(),
            Kernel::F32Key(t) => {
                let tally = if d.is_packed() {
                    t.run(src, n, |i, c| d.write(dst, i, u64::from(c)))
                } else {
                    t.run(src, n, |i, c| dst[i] = c)
                };
                tally.finish()
            }
            Kernel::Reference => reference::run(src, s, dst, d, start, n, policy, options),
        }
    }

    /// Short name, for benchmarks and tests.
    pub(crate) const fn name(&self) -> &'static str {
        match self {
            Kernel::Table(_) => "table",
            Kernel::F32To16(_) => "f32-bits",
            Kernel::F32Key(_) => "f32-key",
            Kernel::F32ToInt(_) => "f32-int",
            Kernel::Reference => "reference",
        }
    }
}
