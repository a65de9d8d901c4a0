//! The reference kernel: the one rounding routine per element. It defines every result.

use crate::bulk::{BulkOptions, Storage, entropy};
use crate::convert::convert_with_status;
use crate::policy::CastPolicy;
use crate::round::RoundMode;
use crate::status::{StatusCounts, StatusTally};

/// Casts elements `0..n` of the given sub-buffers; `start` is the sub-buffers' global offset.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run(
    src: &[u8],
    s: Storage,
    dst: &mut [u8],
    d: Storage,
    start: usize,
    n: usize,
    policy: &CastPolicy,
    options: &BulkOptions,
) -> StatusCounts {
    let stochastic = policy.round == RoundMode::Hybrid;
    let base = options.first_index.wrapping_add(start as u64);
    let mut tally = StatusTally::new();
    for i in 0..n {
        let code = s.read(src, i);
        let e = if stochastic {
            entropy(options.seed, base.wrapping_add(i as u64))
        } else {
            0
        };
        let out = convert_with_status(code, s.format(), d.format(), policy, e);
        tally.add(out.status);
        d.write(dst, i, out.code);
    }
    tally.finish()
}
