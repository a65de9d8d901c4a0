//! Loading a compiled PE program onto a PE of the simulator, and running the simulator so
//! that an error of the program's code comes back as a `file:line:col` diagnostic.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use npusim_cerebras::ids::{ControlTaskId, LocalTaskId, TaskId};
use npusim_cerebras::sched::{RunReport, Sim, SimError};

use super::error::PeError;
use super::exec::{FaultSlot, PeCode, task_body, to_bits};
use super::program::{BoundTask, Global, PeProgram};
use crate::span::Span;

/// A program loaded on one PE.
#[derive(Clone, Debug)]
pub struct LoadedPe {
    /// The PE's column.
    pub x: i64,
    /// The PE's row.
    pub y: i64,
    /// The first run-time error of its code, if any.
    pub fault: FaultSlot,
    /// Its code, for starting an exported function from the host.
    pub(crate) code: Arc<PeCode>,
}

impl LoadedPe {
    /// Binds function `name` of the program as the body of local task `id` on its PE (how
    /// the host's `launch` starts an exported function).
    pub(crate) fn bind_function(
        &self,
        sim: &mut Sim,
        id: LocalTaskId,
        name: &str,
    ) -> Result<(), SimError> {
        sim.bind_task(
            self.x,
            self.y,
            TaskId::from(id),
            name,
            task_body(self.code.clone(), name.to_string()),
        )
    }
}

/// Loads `program` onto PE `(x, y)` of `sim`: declares its arrays and `var`s in the PE's
/// memory in declaration order with their initial values, builds its DSDs, binds its tasks
/// and activates those a `comptime` block activates.
pub fn load(program: &Arc<PeProgram>, sim: &mut Sim, x: i64, y: i64) -> Result<LoadedPe, PeError> {
    let mem_err = |source| PeError::Memory { x, y, source };
    let pe = sim.pe_mut(x, y)?;
    for a in &program.arrays {
        match a.align {
            Some(n) => pe.mem.declare_aligned(&a.name, a.elem, &a.shape, n),
            None => pe.mem.declare(&a.name, a.elem, &a.shape),
        }
        .map_err(mem_err)?;
        if let Some(init) = &a.init {
            let word = pe.mem.array(&a.name).map_err(mem_err)?.word_addr;
            for (k, v) in init.iter().enumerate() {
                let bits = to_bits(v.clone(), a.elem, Span::default()).map_err(|f| {
                    PeError::from(program.source().diagnostic(Span::default(), f.message))
                })?;
                pe.mem
                    .store(word + k as i64 * i64::from(a.elem.words()), a.elem, bits)
                    .map_err(mem_err)?;
            }
        }
    }
    let mut dsds = HashMap::new();
    for (name, g) in &program.globals {
        if let Global::Dsd { spec, .. } = g {
            dsds.insert(name.clone(), spec.build(&pe.mem).map_err(mem_err)?);
        }
    }
    let fault: FaultSlot = Arc::new(Mutex::new(None));
    let code = Arc::new(PeCode::new(program.clone(), dsds, fault.clone()));
    for b in &program.tasks {
        let id: TaskId = match b.id {
            BoundTask::Local(n) => LocalTaskId::new(i64::from(n))
                .map_err(|e| SimError::Task {
                    x: x as u32,
                    y: y as u32,
                    what: e.to_string(),
                })?
                .into(),
            BoundTask::Control(n) => ControlTaskId::new(i64::from(n))
                .map_err(|e| SimError::Task {
                    x: x as u32,
                    y: y as u32,
                    what: e.to_string(),
                })?
                .into(),
            BoundTask::Data(n) => {
                return Err(PeError::NotYet(format!(
                    "task `{}` is bound to data task id {n}: data tasks come with the fabric lowering",
                    b.task
                )));
            }
        };
        sim.bind_task(x, y, id, &b.task, task_body(code.clone(), b.task.clone()))?;
    }
    for &n in &program.activations {
        let id = LocalTaskId::new(i64::from(n)).map_err(|e| SimError::Task {
            x: x as u32,
            y: y as u32,
            what: e.to_string(),
        })?;
        sim.activate(x, y, id)?;
    }
    Ok(LoadedPe { x, y, fault, code })
}

/// Runs `sim` for at most `limit` cycles; an error of a loaded program's code is returned
/// as its diagnostic rather than as the simulator's error.
pub fn run(sim: &mut Sim, limit: u64, pes: &[LoadedPe]) -> Result<RunReport, PeError> {
    let result = sim.run(limit);
    for pe in pes {
        if let Some(d) = pe
            .fault
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
        {
            return Err(PeError::Source(d));
        }
    }
    Ok(result?)
}
