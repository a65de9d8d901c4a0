//! The bulk-cast kernels, and the one place that lists them: a kernel is chosen once per slice
//! ([`select`]) and then run over each chunk.
//!
//! | kernel | when | how |
//! |---|---|---|
//! | [`table`] | source of at most 16 bits, any destination, any deterministic mode and policy | the result (code and status) of every source code, computed once by the reference routine and cached; the cast is a lookup |
//! | [`reference`] | everything else (32/64-bit sources, stochastic rounding) | [`convert_with_status`](crate::convert_with_status) per element |
//!
//! The reference routine is the definition: every other kernel is tested bit for bit (codes
//! and statuses) against it.

pub(crate) mod reference;
pub(crate) mod table;

use std::sync::Arc;

use super::{BulkOptions, Storage};
use crate::policy::CastPolicy;
use crate::round::RoundMode;
use crate::status::StatusCounts;

/// A chosen kernel for one (source storage, destination storage, policy) combination.
#[derive(Clone, Debug)]
pub(crate) enum Kernel {
    /// Lookup in the cached results of every source code.
    Table(Arc<table::Table>),
    /// The reference routine per element.
    Reference,
}

/// Which kernel to use. `force_reference` skips the fast kernels (tests compare the two).
pub(crate) fn select(s: Storage, d: Storage, policy: &CastPolicy, force_reference: bool) -> Kernel {
    if force_reference || policy.round == RoundMode::Hybrid {
        return Kernel::Reference;
    }
    match table::Table::cached(s.format(), d.format(), policy) {
        Some(t) => Kernel::Table(t),
        None => Kernel::Reference,
    }
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
            Kernel::Reference => reference::run(src, s, dst, d, start, n, policy, options),
        }
    }

    /// Short name, for benchmarks and tests.
    pub(crate) const fn name(&self) -> &'static str {
        match self {
            Kernel::Table(_) => "table",
            Kernel::Reference => "reference",
        }
    }
}
