//! `.priority = .{ .high = true }` (or `.medium`, `.low`): the microthread priority of an
//! asynchronous DSD operation. On WSE-2 it is an option of the operation; on WSE-3 a field of
//! the fabric DSD or of the FIFO (`@allocate_fifo(buf, .{ .priority = ... })`). It is checked
//! where it is written and handed to the simulator with the operation, DSD or FIFO.

use npusim_cerebras::dsd::Priority;

use super::flags::one_flag;
use crate::ast::Expr;
use crate::comptime::{Arch, EvalError};

/// Where a `.priority` is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PriorityPlace {
    /// The options struct of a DSD operation.
    Options,
    /// The fields of a `fabin_dsd` / `fabout_dsd`.
    FabricDsd,
    /// The options of `@allocate_fifo`.
    Fifo,
}

/// The priority `.priority = value` written at `place` on `arch` sets.
pub(crate) fn check_priority(
    value: &Expr,
    place: PriorityPlace,
    arch: Arch,
) -> Result<Priority, EvalError> {
    match (place, arch) {
        (PriorityPlace::Options, Arch::Wse3) => {
            return Err(EvalError::new(
                value.span,
                "on WSE-3 the priority is a field of the fabric DSD or of the FIFO, not an option of the operation",
            ));
        }
        (PriorityPlace::FabricDsd | PriorityPlace::Fifo, Arch::Wse2) => {
            return Err(EvalError::new(
                value.span,
                "on WSE-2 the priority is an option of the asynchronous operation, not a field of the DSD or FIFO",
            ));
        }
        _ => {}
    }
    Ok(
        match one_flag(value, &["high", "medium", "low"], "priority")? {
            "high" => Priority::High,
            "medium" => Priority::Medium,
            _ => Priority::Low,
        },
    )
}
