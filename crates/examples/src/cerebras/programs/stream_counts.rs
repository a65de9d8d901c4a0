//! When a PE of the streaming gemv programs (E5, E6) has all its inputs: `x` values counted
//! in `counts[0]`, `b` values in `counts[1]`.

use npusim_cerebras::ids::LocalTaskId;
use npusim_cerebras::sched::Action;

/// Activates `reduce_id` once `counts[0]` reaches `x_count` and, on a PE that receives `b`
/// (`b_count` given), `counts[1]` reaches it; nothing before.
pub(super) fn reduce_when_all_in(
    counts: &[u32],
    x_count: u64,
    b_count: Option<u64>,
    reduce_id: LocalTaskId,
) -> Vec<Action> {
    let x_done = counts.first().is_some_and(|&c| u64::from(c) == x_count);
    let b_done = b_count.is_none_or(|n| counts.get(1).is_some_and(|&c| u64::from(c) == n));
    if x_done && b_done {
        vec![Action::Activate(reduce_id)]
    } else {
        Vec::new()
    }
}
