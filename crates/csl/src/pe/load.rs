//! Loading a compiled PE program onto a PE of the simulator, and running the simulator so
//! that an error of the program's code comes back as a `file:line:col` diagnostic.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use npusim_cerebras::dsd::{Dsd, FifoConfig};
use npusim_cerebras::ids::{
    Channel, Color, ControlTaskId, DataTaskId, InputQueue, LocalTaskId, MicrothreadId, OutputQueue,
    TaskId,
};
use npusim_cerebras::ops::DsrId;
use npusim_cerebras::sched::{AsyncConfig, Completion};
use npusim_cerebras::sched::{RunReport, Sim, SimError};
use npusim_cerebras::{Arch, Pe};

use super::error::PeError;
use super::exec::{FaultSlot, PeCode, launch_body, task_body, to_bits};
use super::program::{BoundTask, Global, PeProgram};
use super::target::{Target, target_of};
use super::tensor_access::DsdSpec;
use super::value::RtValue;
use crate::comptime::Value;
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
            launch_body(self.code.clone(), name.to_string()),
        )
    }
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
            empty_action: f.empty_action,
            full_action: f.full_action,
            priority: f.priority,
            simd_mode: f.simd_mode,
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
    let dsrs = load_dsrs(program, sim, x, y, &dsds)?;
    let fault: FaultSlot = Arc::new(Mutex::new(None));
    let code = Arc::new(PeCode::new(
        program.clone(),
        dsds,
        built,
        fifos,
        dsrs,
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
    apply_blocks(program, sim, x, y)?;
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

/// The `@block` / `@unblock` calls of the `comptime` blocks: what is blocked at the end of
/// them is blocked when the program starts (tasks start unblocked, channels closed to
/// control wavelets). A channel a data task is bound to blocks or unblocks that task; an
/// unblocked channel without one is opened to control wavelets.
fn apply_blocks(program: &PeProgram, sim: &mut Sim, x: i64, y: i64) -> Result<(), PeError> {
    let arch = sim.arch();
    let diag = |span, message: String| PeError::from(program.source().diagnostic(span, message));
    let mut last: Vec<(Target, bool, Span)> = Vec::new();
    for (block, v, span) in &program.blocks {
        let t = target_of(&RtValue::Comptime(v.clone()), arch, *span)
            .map_err(|f| diag(f.span, f.message))?;
        last.retain(|(u, _, _)| *u != t);
        last.push((t, *block, *span));
    }
    let data_task_of = |c: Channel| -> Option<TaskId> {
        let id = match c {
            Channel::Color(c) => DataTaskId::of_color(c),
            Channel::Queue(q) => DataTaskId::of_queue(q),
        };
        let bound = program
            .tasks
            .iter()
            .any(|b| b.id == BoundTask::Data(id.id()));
        bound.then_some(TaskId::Data(id))
    };
    for (t, block, span) in last {
        match (t, block) {
            (Target::Task(id), true) => sim.block(x, y, id)?,
            (Target::Task(_), false) => {}
            (Target::Channel(c), true) => {
                if let Some(id) = data_task_of(c) {
                    sim.block(x, y, id)?;
                }
            }
            (Target::Channel(c), false) => {
                if data_task_of(c).is_none() {
                    // WSE-2 binds the color to its default input queue, as for a fabin
                    if let Channel::Color(color) = c {
                        sim.pe_mut(x, y)?.queues.default_input(color);
                    }
                    sim.unblock_channel(x, y, c)?;
                }
            }
            (Target::Microthread(u), _) => {
                return Err(diag(
                    span,
                    format!(
                        "@block / @unblock of microthread {} in a comptime block is not supported yet",
                        u.id()
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The `@load_to_dsr`s of the `comptime` blocks, in order: each loads a module DSD into a
/// new DSR of its file (asynchronous ones with their completion and microthread).
fn load_dsrs(
    program: &PeProgram,
    sim: &mut Sim,
    x: i64,
    y: i64,
    dsds: &HashMap<String, Dsd>,
) -> Result<HashMap<String, DsrId>, PeError> {
    let diag = |span, message: String| PeError::from(program.source().diagnostic(span, message));
    let mut out = HashMap::new();
    for l in &program.dsr_loads {
        let Some(Global::Dsr(file)) = program.globals.get(&l.dsr) else {
            continue;
        };
        let Some(dsd) = dsds.get(&l.dsd) else {
            continue;
        };
        let id = if l.is_async {
            let arch = sim.arch();
            let target = |v: &Value| {
                target_of(&RtValue::Comptime(v.clone()), arch, l.span)
                    .map_err(|f| diag(f.span, f.message))
            };
            let mut cfg = AsyncConfig::default();
            if let Some(v) = &l.activate {
                match target(v)? {
                    Target::Task(TaskId::Local(t)) => cfg.on_done = Some(Completion::Activate(t)),
                    _ => {
                        return Err(diag(
                            l.span,
                            format!(
                                "`.activate` takes a local task id, found {} `{v}`",
                                v.type_name()
                            ),
                        ));
                    }
                }
            }
            if let Some(v) = &l.unblock {
                cfg.on_done = Some(match target(v)? {
                    Target::Task(id) => Completion::Unblock(id),
                    Target::Channel(c) => Completion::UnblockChannel(c),
                    Target::Microthread(_) => {
                        return Err(diag(
                            l.span,
                            "`.unblock` takes a task id or a channel".into(),
                        ));
                    }
                });
            }
            if let Some(u) = l.ut_id {
                cfg.ut_id = Some(
                    MicrothreadId::new(i64::from(u)).map_err(|e| diag(l.span, e.to_string()))?,
                );
            }
            sim.load_to_dsr_async(x, y, *file, dsd, cfg)?
        } else {
            sim.pe_mut(x, y)?
                .load_to_dsr(*file, dsd, l.save_address)
                .map_err(|e| diag(l.span, e.to_string()))?
        };
        out.insert(l.dsr.clone(), id);
    }
    Ok(out)
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
