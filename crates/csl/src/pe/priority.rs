//! `.priority = .{ .high = true }` (or `.medium`, `.low`): the microthread priority of an
//! asynchronous DSD operation. On WSE-2 it is an option of the operation; on WSE-3 a field of
//! the fabric DSD or of the FIFO (`@allocate_fifo(buf, .{ .priority = ... })`). It is checked
//! where it is written. The simulator's scheduling of microthreads does not model priority:
//! it only orders operations that run at the same time, so it changes no result of a program
//! whose result does not depend on that order (docs/csl.md, "PE fabric").

use crate::ast::{Expr, ExprKind};
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

/// Checks `.priority = value` written at `place` on `arch`.
pub(crate) fn check_priority(
    value: &Expr,
    place: PriorityPlace,
    arch: Arch,
) -> Result<(), EvalError> {
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
    let bad = || {
        EvalError::new(
            value.span,
            "`.priority` takes one of `.{ .high = true }`, `.{ .medium = true }`, `.{ .low = true }`",
        )
    };
    let ExprKind::StructLit(fields) = &value.kind else {
        return Err(bad());
    };
    match fields.as_slice() {
        [f] if matches!(f.name.as_str(), "high" | "medium" | "low")
            && matches!(f.value.kind, ExprKind::Bool(true)) =>
        {
            Ok(())
        }
        _ => Err(bad()),
    }
}
