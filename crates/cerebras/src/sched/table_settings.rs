//! A PE's WSE-3 task-table settings: a separate control-task table and rotating data/control
//! task pairs (what `@set_control_task_table` and `@bind_rotating_tasks` set, see
//! [`super::task_tables`]).

/// At most this many rotating pairs per PE (spec §1.3).
pub const MAX_ROTATING_PAIRS: usize = 2;

/// A WSE-3 separate control-task table (`@set_control_task_table`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ControlTaskTable {
    /// Instructions per entry: 2, 4 or 8.
    pub instructions: u8,
    /// Entry stride: 1..=7.
    pub stride: u8,
}

impl Default for ControlTaskTable {
    fn default() -> ControlTaskTable {
        ControlTaskTable {
            instructions: 4,
            stride: 1,
        }
    }
}

/// One rotating pair: the data task, its control task, the period and the counter.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Rotation {
    pub(crate) data_id: u8,
    pub(crate) control: u8,
    pub(crate) limit: u16,
    pub(crate) counter: u16,
}
