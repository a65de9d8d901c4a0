//! The Fetch Adapter's mask stage (`docs/furiosa-engines.md` §4.2, §4.3): `fetch_mask()` turns
//! the `#` (Top, arbitrary) padding of Time and Packet into `#{0}` (Zero) padding, so that a
//! later stage may rely on those cells holding zero. The data are unchanged: a fetch already
//! leaves 0 in every dead stream cell (decision §4.3, "data"). No latency of its own (decision
//! §4.3, "latencies").

use crate::StreamTensor;
use crate::engine::fetch::FetchError;
use crate::mapping::PaddingKind;
use crate::tensor::Position;

/// Added latency of `fetch_mask` in cycles.
pub const FETCH_MASK_LATENCY: usize = 0;

impl StreamTensor {
    /// `.fetch_mask()`: the `FetchMaskTensor` whose Time and Packet have their Top padding
    /// relabelled Zero; the codes are those of the fetch (dead cells hold 0).
    pub fn fetch_mask(self) -> Result<StreamTensor, FetchError> {
        self.position().check_transition("fetch_mask")?;
        let time = self.time().repad(PaddingKind::Top, PaddingKind::Zero);
        let packet = self.packet().repad(PaddingKind::Top, PaddingKind::Zero);
        Ok(self.relabel(time, packet).moved_to(Position::FetchMask))
    }
}
