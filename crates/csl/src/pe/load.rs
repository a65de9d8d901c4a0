//! Loading a compiled PE program onto a PE of the simulator, and running the simulator so
//! that an error of the program's code comes back as a `file:line:col` diagnostic.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use npusim_cerebras::dsd::FifoConfig;
use npusim_cerebras::ids::{
    Color, ControlTaskId, DataTaskId, InputQueue, LocalTaskId, OutputQueue, TaskId,
};
use npusim_cerebras::sched::{RunReport, Sim, SimError};
use npusim_cerebras::{Arch, Pe};

use super::error::PeError;
use super::exec::{FaultSlot, PeCode, task_body, to_bits};
use super::program::{BoundTask, Global, PeProgram};
use super::tensor_access::DsdSpec;
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
}

/// Loads `program` onto PE `(x, y)` of `sim`: declares its arrays and `var`s in the PE's
/// memory in declaration order with their initial values, binds the queues its
/// `@initialize_queue`s name, builds its DSDs (those of bodies too) and FIFOs, binds its
/// local, data and control tasks and activates those a `comptime` block activates.
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
    let setup = |e: &dyn std::fmt::Display| {
        PeError::Sim(SimError::Task {
            x: x as u32,
            y: y as u32,
            what: e.to_string(),
        })
    };
    for q in &program.queue_inits {
        let color = Color::new(i64::from(q.color)).map_err(|e| setup(&e))?;
        if q.input {
            let queue = InputQueue::new(i64::from(q.queue)).map_err(|e| setup(&e))?;
            pe.queues.bind_input(queue, color)
        } else {
            let queue = OutputQueue::new(i64::from(q.queue)).map_err(|e| setup(&e))?;
            pe.queues.bind_output(queue, color)
        }
        .map_err(|e| setup(&e))?;
    }
    let mut dsds = HashMap::new();
    let mut fabric = Vec::new();
    for (name, g) in &program.globals {
        if let Global::Dsd { spec, .. } = g {
            dsds.insert(name.clone(), spec.build(&pe.mem).map_err(mem_err)?);
            fabric.push(spec);
        }
    }
    let mut built = HashMap::new();
    for (span, spec) in &program.body_dsds {
        built.insert(*span, spec.build(&pe.mem).map_err(mem_err)?);
        fabric.push(spec);
    }
    if pe.arch() == Arch::Wse2 {
        bind_wse2_fabins(pe, &fabric)?;
    }
    let mut fifos = Vec::new();
    for f in &program.fifos {
        let local = |n: Option<u8>| {
            n.map(|n| LocalTaskId::new(i64::from(n)))
                .transpose()
                .map_err(|e| SimError::Task {
                    x: x as u32,
                    y: y as u32,
                    what: format!("FIFO `{}`: {e}", f.name),
                })
        };
        let config = FifoConfig {
            activate_push: local(f.activate_push)?,
            activate_pop: local(f.activate_pop)?,
            ..FifoConfig::default()
        };
        let id = pe
            .allocate_fifo(&f.buffer, config)
            .map_err(|e| SimError::Task {
                x: x as u32,
                y: y as u32,
                what: format!("@allocate_fifo `{}`: {e}", f.name),
            })?;
        fifos.push(id);
    }
    let fault: FaultSlot = Arc::new(Mutex::new(None));
    let code = Arc::new(PeCode::new(
        program.clone(),
        dsds,
        built,
        fifos,
        fault.clone(),
    ));
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
                let bad = |e: &dyn std::fmt::Display| SimError::Task {
                    x: x as u32,
                    y: y as u32,
                    what: format!("data task `{}`: {e}", b.task),
                };
                match sim.arch() {
                    Arch::Wse2 => {
                        DataTaskId::of_color(Color::new(i64::from(n)).map_err(|e| bad(&e))?)
                    }
                    Arch::Wse3 => {
                        DataTaskId::of_queue(InputQueue::new(i64::from(n)).map_err(|e| bad(&e))?)
                    }
                }
                .into()
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
    Ok(LoadedPe { x, y, fault })
}

/// On WSE-2 a fabin naming a color reads that color's wavelets from its input queue (the
/// queue it names, else the color's default queue), as the compiler binds them: done at load
/// so that wavelets arriving before the operation starts wait in the queue.
fn bind_wse2_fabins(pe: &mut Pe, specs: &[&DsdSpec]) -> Result<(), PeError> {
    for spec in specs {
        let DsdSpec::Fabric(f) = spec else { continue };
        match f.wse2_input_binding() {
            Some((Some(q), color)) => {
                let queue = InputQueue::new(i64::from(q))
                    .map_err(|e| PeError::NotYet(format!("fabin queue: {e}")))?;
                pe.queues.bind_input(queue, color).map_err(SimError::from)?;
            }
            Some((None, color)) => {
                pe.queues.default_input(color);
            }
            None => {}
        }
    }
    Ok(())
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
