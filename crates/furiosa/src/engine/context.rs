//! What the Tensor Unit's two contexts change in the engines (`docs/furiosa-engines.md` §4.3,
//! §8.2): the sub context reads and writes DM 8 bytes per access (the Fetch Engine page's
//! "read_size is fixed at 8 bytes", the Commit Engine page's "write_size fixed at 8 bytes"),
//! and the Fetch Adapter's table lookup and the Commit Adapter's cast run in the main context
//! only.
//!
//! **decision (sub accesses)**: an access is capped at 8 bytes — the largest allowed read
//! (write) of the main-context rule that is at most 8 bytes — so a packet whose access is
//! already smaller (a 4-byte packet) keeps it; cycles follow from the capped size as in the
//! main context.

use thiserror::Error;

use crate::engine::commit::CommitPlan;
use crate::engine::fetch::FetchPlan;
use crate::schedule::Context;

/// Bytes one DM access moves in the sub context.
pub const SUB_ACCESS_BYTES: usize = 8;

/// A stage the sub context does not have.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error(
    "{method} runs in the main context only, not in the {context} context (rule: the Fetch Adapter's table lookup and the Commit Adapter's cast are main-context stages; the sub context trims but does not cast)"
)]
pub struct MainOnlyError {
    /// The stage.
    pub method: &'static str,
    /// The context it was called in.
    pub context: &'static str,
}

/// Refuses `method` outside the main context.
pub fn check_main_only(method: &'static str, context: Context) -> Result<(), MainOnlyError> {
    match context {
        Context::Main => Ok(()),
        Context::Sub => Err(MainOnlyError {
            method,
            context: context.name(),
        }),
    }
}

impl FetchPlan {
    /// The plan as `context` runs it: in the sub context each read moves at most 8 bytes.
    pub fn in_context(self, context: Context) -> FetchPlan {
        if context == Context::Main || self.read_bytes <= SUB_ACCESS_BYTES {
            return self;
        }
        let packet = self.reads_per_packet * self.read_elems;
        let time = self.cycles / self.reads_per_packet.max(1);
        let (mut elems, mut bytes) = (self.read_elems, self.read_bytes);
        while bytes > SUB_ACCESS_BYTES && elems.is_multiple_of(2) {
            elems /= 2;
            bytes /= 2;
        }
        let reads_per_packet = packet / elems.max(1);
        FetchPlan {
            read_elems: elems,
            read_bytes: bytes,
            reads_per_packet,
            cycles: time * reads_per_packet,
            ..self
        }
    }
}

impl CommitPlan {
    /// The plan as `context` runs it: in the sub context each write moves at most 8 bytes.
    pub fn in_context(self, context: Context) -> CommitPlan {
        if context == Context::Main || self.write_bytes <= SUB_ACCESS_BYTES {
            return self;
        }
        let time = self.cycles / self.writes_per_packet.max(1);
        // The largest divisor of the main-context write that is at most 8 bytes (writes are
        // multiples of 8 bytes or divide 8, so this is gcd(write, 8)).
        let write = gcd(self.write_bytes, SUB_ACCESS_BYTES);
        let writes_per_packet = self.valid_bytes / write.max(1);
        CommitPlan {
            write_bytes: write,
            writes_per_packet,
            cycles: time * writes_per_packet,
            ..self
        }
    }
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 { a } else { gcd(b, a % b) }
}
