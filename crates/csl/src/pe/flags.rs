//! Option structs that choose one of several flags, as `.{ .high = true }` (`.priority`),
//! `.{ .simd_32 = true }` (`.simd_mode`) or `.{ .terminate = true }` (a FIFO's
//! `.empty_action`): exactly one field, named from a fixed list, set to the literal `true`.

use crate::ast::{Expr, ExprKind};
use crate::comptime::EvalError;

/// The flag `value` sets, one of `choices`; `what` names the field in the error.
pub(crate) fn one_flag<'c>(
    value: &Expr,
    choices: &[&'c str],
    what: &str,
) -> Result<&'c str, EvalError> {
    let bad = || {
        EvalError::new(
            value.span,
            format!(
                "`.{what}` takes one of {}",
                choices
                    .iter()
                    .map(|c| format!("`.{{ .{c} = true }}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )
    };
    let ExprKind::StructLit(fields) = &value.kind else {
        return Err(bad());
    };
    match fields.as_slice() {
        [f] if matches!(f.value.kind, ExprKind::Bool(true)) => choices
            .iter()
            .find(|c| **c == f.name)
            .copied()
            .ok_or_else(bad),
        _ => Err(bad()),
    }
}
