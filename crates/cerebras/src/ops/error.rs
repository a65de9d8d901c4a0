//! What can go wrong when a DSD operation runs.

use thiserror::Error;

use super::op::Class;
use crate::dsd::DsdError;
use crate::elem::ElemTy;
use crate::fabric::FabricError;
use crate::memory::MemoryError;

/// A DSD operation that breaks a rule (operand kinds, types, FIFO and DSR rules, lengths) or
/// an access outside PE memory.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum OpError {
    /// The operand kinds are not a form the builtin accepts.
    #[error("@{op} does not accept operands ({form}); accepted: {accepted}")]
    Form {
        /// The builtin.
        op: &'static str,
        /// The kinds given (`D` DSD/DSR/FIFO, `S` scalar, `P` pointer), destination first.
        form: String,
        /// The accepted forms.
        accepted: String,
    },
    /// An operand whose element type the builtin does not take.
    #[error("@{op} operand {position} is {found}, expected {expected}")]
    Type {
        /// The builtin.
        op: &'static str,
        /// `destination`, `source 0`, ...
        position: String,
        /// Its element type.
        found: ElemTy,
        /// What the builtin takes there.
        expected: Class,
    },
    /// A DSD kind that cannot be an operand here.
    #[error("@{op}: a {kind} cannot be used as {position}: {why}")]
    Kind {
        /// The builtin.
        op: &'static str,
        /// The DSD kind.
        kind: &'static str,
        /// Where it was given.
        position: String,
        /// The rule.
        why: &'static str,
    },
    /// A FIFO rule of seed 004 broken.
    #[error("@{op}: {rule}")]
    FifoRule {
        /// The builtin.
        op: &'static str,
        /// The rule.
        rule: &'static str,
    },
    /// A DSD with `wavelet_index_offset` used without `.index` (undefined on hardware).
    #[error("@{op}: {position} has wavelet_index_offset enabled but the operation gives no .index")]
    MissingIndex {
        /// The builtin.
        op: &'static str,
        /// The operand.
        position: String,
    },
    /// Under the strict length policy, operands with different lengths.
    #[error(
        "@{op}: {position} has length {length} but the operation's length is {governing} (strict length policy)"
    )]
    LengthMismatch {
        /// The builtin.
        op: &'static str,
        /// The disagreeing operand.
        position: String,
        /// Its length.
        length: u64,
        /// The governing length.
        governing: u64,
    },
    /// A synchronous operation that would suspend on a FIFO nobody else can serve.
    #[error(
        "@{op}: FIFO {fifo} is {state} and its action is suspend: a synchronous operation would wait forever"
    )]
    WouldSuspend {
        /// The builtin.
        op: &'static str,
        /// The FIFO's buffer.
        fifo: String,
        /// `empty` or `full`.
        state: &'static str,
    },
    /// A FIFO `fault` action fired.
    #[error("@{op}: FIFO {fifo} is {state} and its action is fault: unrecoverable halt")]
    FifoFault {
        /// The builtin.
        op: &'static str,
        /// The FIFO's buffer.
        fifo: String,
        /// `empty` or `full`.
        state: &'static str,
    },
    /// An operation whose semantics the documentation does not give.
    #[error("@{op}: {why}")]
    Undocumented {
        /// The builtin.
        op: &'static str,
        /// Why it is refused.
        why: &'static str,
    },
    /// An unknown FIFO or DSR handle.
    #[error("no {what} with id {id} on this PE")]
    UnknownHandle {
        /// `FIFO` or `DSR`.
        what: &'static str,
        /// The id.
        id: usize,
    },
    /// A DSD load that breaks the DSR rules (spec §3).
    #[error("{builtin}: {rule}")]
    Load {
        /// The builtin.
        builtin: &'static str,
        /// The rule.
        rule: &'static str,
    },
    /// A memory access outside the PE's memory.
    #[error(transparent)]
    Memory(#[from] MemoryError),
    /// A DSD that breaks a rule.
    #[error(transparent)]
    Dsd(#[from] DsdError),
    /// A fabric rule of seed 004 broken (operand position, WSE-3 single fabric input, ...).
    #[error("@{op}: {rule}")]
    FabricRule {
        /// The builtin.
        op: &'static str,
        /// The rule.
        rule: &'static str,
    },
    /// A fabout naming only an output queue that is bound to no color.
    #[error("@{op}: output queue {queue} is bound to no color and the fabout_dsd names none")]
    NoOutputColor {
        /// The builtin.
        op: &'static str,
        /// The queue.
        queue: u8,
    },
    /// A WSE-3 fabric DSD naming a color and a queue whose `@initialize_queue` binding is
    /// another color, or none.
    #[error(
        "@{op}: the {kind} names fabric_color {color} and {side} queue {queue}, but {side} queue {queue} is {}",
        bound_text(*bound)
    )]
    QueueColor {
        /// The builtin.
        op: &'static str,
        /// `fabin_dsd` or `fabout_dsd`.
        kind: &'static str,
        /// `input` or `output`.
        side: &'static str,
        /// The queue the DSD names.
        queue: u8,
        /// The color the DSD names.
        color: u8,
        /// The color the queue is initialized to (`@initialize_queue`), if any.
        bound: Option<u8>,
    },
    /// A data wavelet whose index bits 15..14 are in use reached a `control_transform` fabin.
    #[error(
        "@{op}: data wavelet 0x{payload:08X} uses index bits 15..14, which control_transform reserves for its marker"
    )]
    ControlTransform {
        /// The builtin.
        op: &'static str,
        /// The payload.
        payload: u32,
    },
    /// A synchronous operation on a lone PE that waits for something nobody will provide.
    #[error("@{op}: element {element} waits for {wait}, which nothing on this PE will provide")]
    Stalled {
        /// The builtin.
        op: &'static str,
        /// The element it stopped at.
        element: u64,
        /// What it waits for.
        wait: String,
    },
    /// A fabric error (color, queue binding).
    #[error(transparent)]
    Fabric(#[from] FabricError),
}

/// How [`OpError::QueueColor`] names a queue's binding.
fn bound_text(bound: Option<u8>) -> String {
    match bound {
        Some(c) => format!("initialized to color {c} (@initialize_queue)"),
        None => "initialized to no color (WSE-3 needs @initialize_queue)".to_string(),
    }
}
