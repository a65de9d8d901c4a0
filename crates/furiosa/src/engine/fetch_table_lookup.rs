//! The Fetch Adapter's table lookup (`docs/furiosa-engines.md` §4.2):
//! `fetch_table_lookup::<OutD>()` decodes every element of a fetched stream through a table
//! chosen by the input type: `f4e2m1 → f8e4m3, f8e5m2`; `f8e4m3 → bf16`; `f8e5m2 → bf16`.
//! Time and Packet are unchanged.
//!
//! The hardware looks an f4e2m1 byte (two nibbles) up in a 256-entry paired table; npusim
//! streams one code per element, so the pair table is the element table applied to each nibble
//! (low nibble first in DM, as every 4-bit type). Every value of each input type is exact in
//! its output type, so the lookup is an exact decode (decision §4.3, "numerics"); a NaN input
//! (f8e4m3 `0x7f`/`0xff`, f8e5m2's NaNs) becomes the canonical bf16 NaN `0x7fc0` — npusim's
//! choice, as for the other conversions of §4.3 (the document is silent on NaN payloads).
//! Latency 1 cycle (npusim's; none is published). When a lookup follows a fetch, one read's
//! output must still fit one 32-byte flit: [`BeginTensor::plan_cast`](super::fetch::BeginTensor::plan_cast)
//! with the lookup's output type gives that fetch's read size.

use npusim_numerics::{CastPolicy, RoundMode, convert};

use crate::engine::fetch::FetchError;
use crate::tensor::Position;
use crate::{DType, StreamTensor};

/// Added latency of `fetch_table_lookup` in cycles (npusim's).
pub const FETCH_TABLE_LOOKUP_LATENCY: usize = 1;

/// The canonical bf16 NaN a looked-up NaN becomes.
const BF16_NAN: u64 = 0x7fc0;

/// Whether `fetch_table_lookup` maps `src` to `dst`.
pub fn is_table_lookup_pair(src: DType, dst: DType) -> bool {
    matches!(
        (src, dst),
        (DType::F4E2M1, DType::F8E4M3 | DType::F8E5M2)
            | (DType::F8E4M3 | DType::F8E5M2, DType::BF16)
    )
}

/// The table entry of one code of `src` in `dst` (a pair of [`is_table_lookup_pair`]).
pub fn table_lookup_code(code: u64, src: DType, dst: DType) -> u64 {
    if src.format().decode(code).to_f64().is_nan() {
        return BF16_NAN;
    }
    convert(
        code,
        src.format(),
        dst.format(),
        &CastPolicy::new(RoundMode::Rint),
    )
}

impl StreamTensor {
    /// `.fetch_table_lookup::<OutD>()` with the type given at run time: the
    /// `FetchTableLookupTensor` of every element looked up.
    pub fn fetch_table_lookup_to(self, dst: DType) -> Result<StreamTensor, FetchError> {
        self.position().check_transition("fetch_table_lookup")?;
        let src = self.dtype();
        if !is_table_lookup_pair(src, dst) {
            return Err(FetchError::LookupPair { src, dst });
        }
        let table: Vec<u64> = (0..1u64 << src.bits())
            .map(|c| table_lookup_code(c, src, dst))
            .collect();
        let codes: Vec<u64> = self.codes().iter().map(|c| table[c as usize]).collect();
        Ok(self.restaged(dst, Position::FetchTableLookup, codes)?)
    }

    /// `.fetch_table_lookup::<OutD>()`.
    pub fn fetch_table_lookup<D2: crate::Scalar>(self) -> Result<StreamTensor, FetchError> {
        self.fetch_table_lookup_to(D2::DTYPE)
    }
}
