//! Task-table features beyond plain binding (spec §7, §8), as far as the spec describes them:
//!
//! * WSE-3 `@set_control_task_table(.{ .instructions, .stride })`: control tasks get their
//!   own table, so a control task id no longer clashes with a data or local task id.
//!   `instructions` ∈ {2, 4, 8} (default 4) and `stride` 1..=7 (default 1) are validated;
//!   they shape the table in memory, which npusim does not model.
//! * WSE-3 `@bind_rotating_tasks` (at most two pairs per PE): every `limit`-th start of the
//!   data task runs the paired control task instead, with the same wavelet; the counter
//!   starts at `init`.
//! * `@set_teardown_handler(fn, color)`: refused. The handler runs from the teardown task
//!   (id 29) when a color enters teardown, which happens through a TEARDOWN switch command
//!   carried by a control wavelet, whose layout is unpublished.
//! * A color's teardown mode itself (`teardown = true` at start, left through
//!   `<tile_config>`) is [`crate::fabric::Fabric::set_teardown`] and
//!   [`super::Action::ExitTeardown`].

use super::error::SimError;
use super::pe_step::PeStep;
use super::sim::Sim;
use super::table_settings::{ControlTaskTable, MAX_ROTATING_PAIRS, Rotation};
use super::task::Action;
use crate::arch::Arch;
use crate::fabric::Color;
use crate::ids::{ControlTaskId, DataTaskId, TaskId};

impl Sim {
    fn wse3_only(&self, x: i64, y: i64, what: &str) -> Result<(u32, u32, usize), SimError> {
        let k = self.fabric.pe_index(x, y)?;
        let (px, py) = self.fabric.coords(k);
        if self.arch != Arch::Wse3 {
            return Err(SimError::Task {
                x: px,
                y: py,
                what: format!("{what} is WSE-3 only, not {}", self.arch),
            });
        }
        Ok((px, py, k))
    }

    /// `@set_control_task_table(.{ .instructions, .stride })` on PE `(x, y)` (WSE-3).
    pub fn set_control_task_table(
        &mut self,
        x: i64,
        y: i64,
        table: ControlTaskTable,
    ) -> Result<(), SimError> {
        let (px, py, k) = self.wse3_only(x, y, "@set_control_task_table")?;
        let bad = |what: String| SimError::Task { x: px, y: py, what };
        if ![2, 4, 8].contains(&table.instructions) {
            return Err(bad(format!(
                "@set_control_task_table: instructions = {} (must be 2, 4 or 8)",
                table.instructions
            )));
        }
        if !(1..=7).contains(&table.stride) {
            return Err(bad(format!(
                "@set_control_task_table: stride = {} (must be 1..=7)",
                table.stride
            )));
        }
        self.pes[k].control_table = Some(table);
        Ok(())
    }

    /// `@bind_rotating_tasks` on PE `(x, y)` (WSE-3): every `limit`-th start of data task
    /// `data_task` runs control task `control_task` instead; the counter starts at `init`
    /// (`init < limit`). Both tasks must be bound already.
    pub fn bind_rotating_tasks(
        &mut self,
        x: i64,
        y: i64,
        data_task: DataTaskId,
        control_task: ControlTaskId,
        limit: u16,
        init: u16,
    ) -> Result<(), SimError> {
        let (px, py, k) = self.wse3_only(x, y, "@bind_rotating_tasks")?;
        let bad = |what: String| SimError::Task { x: px, y: py, what };
        let st = &mut self.pes[k];
        let bound = |id: TaskId| st.tasks.of_kind(id.kind(), id.id()).is_some();
        if !bound(data_task.into()) {
            return Err(bad(format!(
                "@bind_rotating_tasks: no data task is bound at {data_task}"
            )));
        }
        if !bound(control_task.into()) {
            return Err(bad(format!(
                "@bind_rotating_tasks: no control task is bound at {control_task}"
            )));
        }
        let data_id = data_task.id();
        if limit == 0 || init >= limit {
            return Err(bad(format!(
                "@bind_rotating_tasks: limit {limit}, init {init} (need limit >= 1 and init < limit)"
            )));
        }
        if st.rotations.iter().any(|r| r.data_id == data_id) {
            return Err(bad(format!(
                "@bind_rotating_tasks: {data_task} already rotates"
            )));
        }
        if st.rotations.len() >= MAX_ROTATING_PAIRS {
            return Err(bad(format!(
                "@bind_rotating_tasks: at most {MAX_ROTATING_PAIRS} pairs per PE"
            )));
        }
        st.rotations.push(Rotation {
            data_id,
            control: control_task.id(),
            limit,
            counter: init,
        });
        Ok(())
    }

    /// `@set_teardown_handler(fn, color)`: refused, see the module documentation.
    pub fn set_teardown_handler(
        &mut self,
        x: i64,
        y: i64,
        color: Color,
        _handler: Vec<Action>,
    ) -> Result<(), SimError> {
        let k = self.fabric.pe_index(x, y)?;
        let (px, py) = self.fabric.coords(k);
        Err(SimError::Unsupported {
            x: px,
            y: py,
            what: format!("@set_teardown_handler on color {}", color.id()),
            why: "unpublished: a color enters teardown through a TEARDOWN switch command in a control wavelet, whose layout is not published",
        })
    }
}

impl PeStep<'_> {
    /// A start of data task `data_id` on PE `k`: the control task to run instead, when the
    /// task rotates and this is the `limit`-th start.
    pub(super) fn rotate(&mut self, k: usize, data_id: u8) -> Option<u8> {
        let r = self.pes[k]
            .rotations
            .iter_mut()
            .find(|r| r.data_id == data_id)?;
        r.counter += 1;
        if r.counter < r.limit {
            return None;
        }
        r.counter = 0;
        Some(r.control)
    }
}
