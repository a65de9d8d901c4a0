//! `SdkRuntime`: the host side of a compiled program, as the SDK's runtime offers it —
//! `load`, `run`, copy-mode `memcpy_h2d` / `memcpy_d2h` into exported symbols, `launch` of
//! exported functions, `stop` — over one simulator.
//!
//! Host commands run one after another: each returns when the simulator has nothing more
//! to do (so `nonblock = true` gives the same results as `false`). `launch` starts the
//! function on every PE that exports it and then requires each of them to have called
//! `unblock_cmd_stream()` by the end, since the SDK's next command would wait for it.

use std::collections::BTreeMap;
use std::path::Path;

use npusim_cerebras::ElemTy;
use npusim_cerebras::ids::LocalTaskId;
use npusim_cerebras::sched::RunReport;

use super::DEBUG_ARRAY;
use super::debug::{self, DebugEntry};
use super::error::SdkError;
use super::launch_args::{LAUNCH_ARGS_ARRAY, LaunchArg, MAX_LAUNCH_ARGS, launch_words};
use super::library::CMD_STREAM_ARRAY;
use super::memcpy::{MemcpyDataType, MemcpyOrder, MemcpyRect};
use crate::compiled::{CompiledProgram, LoadedProgram, out_dir};
use crate::comptime::Type;
use crate::pe::{BoundTask, run};

/// Cycles one host command may run the simulator before it is stopped as endless.
pub const DEFAULT_CYCLE_BUDGET: u64 = 50_000_000;

/// The host runtime of one compiled program.
#[derive(Debug)]
pub struct SdkRuntime {
    program: CompiledProgram,
    loaded: Option<LoadedProgram>,
    /// Local task id each exported function is bound at, by host name.
    launch_ids: BTreeMap<String, LocalTaskId>,
    report: Option<RunReport>,
    stopped: bool,
    budget: u64,
    trace: bool,
}

impl SdkRuntime {
    /// The runtime of the program compiled into directory `out_dir` (`SdkRuntime(name)`).
    pub fn new(out_dir: &Path) -> Result<SdkRuntime, SdkError> {
        Ok(SdkRuntime::from_program(out_dir::read(out_dir)?))
    }

    /// The runtime of an already compiled program.
    pub fn from_program(program: CompiledProgram) -> SdkRuntime {
        SdkRuntime {
            program,
            loaded: None,
            launch_ids: BTreeMap::new(),
            report: None,
            stopped: false,
            budget: DEFAULT_CYCLE_BUDGET,
            trace: false,
        }
    }

    /// The compiled program.
    pub fn program(&self) -> &CompiledProgram {
        &self.program
    }

    /// Sets the cycles one host command may run (default [`DEFAULT_CYCLE_BUDGET`]).
    pub fn set_cycle_budget(&mut self, cycles: u64) {
        self.budget = cycles;
    }

    /// Records the simulator's events for a trace (before `load`).
    pub fn record_trace(&mut self, on: bool) {
        self.trace = on;
    }

    /// The simulator's events as a Chrome trace (empty before `load`), with each `<debug>`
    /// entry as an event of category `debug` on its PE's main thread.
    pub fn chrome_trace(&self) -> String {
        let Some(loaded) = self.loaded.as_ref() else {
            return String::new();
        };
        let mut trace = loaded.sim.chrome_trace();
        let width = u64::from(self.program.rectangle.0);
        let extra: Vec<String> = self
            .debug_trace()
            .iter()
            .map(|e| {
                format!(
                    "{{\"name\":\"{}\",\"cat\":\"debug\",\"ph\":\"X\",\"ts\":{},\"dur\":1,\"pid\":{},\"tid\":\"main\"}}",
                    e.text.replace('\\', "\\\\").replace('"', "\\\"").replace(|c: char| c.is_control(), " "),
                    e.cycle,
                    u64::from(e.y) * width + u64::from(e.x)
                )
            })
            .collect();
        if !extra.is_empty() && trace.ends_with("]}") {
            trace.truncate(trace.len() - 2);
            if !trace.ends_with('[') {
                trace.push(',');
            }
            trace.push_str(&extra.join(","));
            trace.push_str("]}");
        }
        trace
    }

    /// Every `<debug>` entry of the run, PE by PE (row by row), each PE's in order.
    pub fn debug_trace(&self) -> Vec<DebugEntry> {
        let Some(loaded) = self.loaded.as_ref() else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let (w, h) = self.program.rectangle;
        for y in 0..h {
            for x in 0..w {
                let Ok(pe) = loaded.sim.pe(i64::from(x), i64::from(y)) else {
                    continue;
                };
                if let Ok(words) = pe.mem.read::<u32>(DEBUG_ARRAY) {
                    let strings = self
                        .program
                        .tiles
                        .get(&(x, y))
                        .map(|p| debug::strings_of(p.source().text()))
                        .unwrap_or_default();
                    out.extend(debug::entries(x, y, &words, &strings));
                }
            }
        }
        out
    }

    /// The `<debug>` entries of the instance with key `key` on the PE at fabric
    /// coordinates `(fx, fy)` (the rectangle's PE `(fx - offset x, fy - offset y)`), in
    /// order, as the SDK's `debug_util.read_trace` reads them.
    pub fn read_trace(&self, fx: u32, fy: u32, key: &str) -> Result<Vec<DebugEntry>, SdkError> {
        let (ox, oy) = self.program.placement.offsets;
        let (w, h) = self.program.rectangle;
        let (x, y) = (fx.wrapping_sub(ox), fy.wrapping_sub(oy));
        if fx < ox || fy < oy || x >= w || y >= h {
            return Err(SdkError::Trace(format!(
                "fabric PE ({fx}, {fy}) is not in the program's {w}x{h} rectangle at fabric offsets ({ox}, {oy})"
            )));
        }
        Ok(self
            .debug_trace()
            .into_iter()
            .filter(|e| e.x == x && e.y == y && e.key == key)
            .collect())
    }

    /// The complete lines each PE printed with `<simprint>`, PE by PE (row by row), each
    /// PE's in order, as `(x, y, line)`.
    pub fn simprint_lines(&self) -> Vec<(u32, u32, String)> {
        let Some(loaded) = self.loaded.as_ref() else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let (w, h) = self.program.rectangle;
        for y in 0..h {
            for x in 0..w {
                let Ok(pe) = loaded.sim.pe(i64::from(x), i64::from(y)) else {
                    continue;
                };
                if let Ok(words) = pe.mem.read::<u16>(super::simprint::SIMPRINT_ARRAY) {
                    out.extend(
                        super::simprint::lines(&words)
                            .into_iter()
                            .map(|l| (x, y, l)),
                    );
                }
            }
        }
        out
    }

    /// The report of the last run of the simulator (cycles, statistics, trace hash).
    pub fn report(&self) -> Option<&RunReport> {
        self.report.as_ref()
    }

    /// `get_id(name)`: checks that some PE exports `name` and gives it back.
    pub fn get_id(&self, name: &str) -> Result<String, SdkError> {
        if self
            .program
            .tiles
            .values()
            .any(|p| p.exports.iter().any(|e| e.host_name == name))
        {
            Ok(name.to_string())
        } else {
            Err(SdkError::UnknownSymbol(name.to_string()))
        }
    }

    /// `load()`: the program on a fresh simulator, exported functions bound for `launch`.
    pub fn load(&mut self) -> Result<(), SdkError> {
        if self.stopped {
            return Err(SdkError::Stopped("load()"));
        }
        let mut loaded = self.program.load()?;
        loaded.sim.record_events(self.trace);
        self.launch_ids.clear();
        for (&(x, y), pe) in &loaded.pes {
            let Some(program) = self.program.tiles.get(&(x, y)) else {
                continue;
            };
            let mut used: Vec<u8> = program
                .tasks
                .iter()
                .map(|t| match t.id {
                    BoundTask::Local(n) | BoundTask::Data(n) | BoundTask::Control(n) => n,
                })
                .collect();
            for export in &program.exports {
                if program.function(&export.symbol).is_none() {
                    continue;
                }
                let id = match self.launch_ids.get(&export.host_name) {
                    Some(id) if !used.contains(&(id.id())) => *id,
                    _ => {
                        let n = (8u8..=30)
                            .rev()
                            .find(|n| !used.contains(n))
                            .ok_or_else(|| SdkError::NoTaskId {
                                x,
                                y,
                                function: export.host_name.clone(),
                            })?;
                        let id = LocalTaskId::new(i64::from(n)).map_err(|e| {
                            npusim_cerebras::sched::SimError::Task {
                                x,
                                y,
                                what: e.to_string(),
                            }
                        })?;
                        self.launch_ids.insert(export.host_name.clone(), id);
                        id
                    }
                };
                used.push(id.id());
                pe.bind_function(&mut loaded.sim, id, &export.symbol)?;
            }
            let k = pe_mem_word(&loaded, x, y)?;
            loaded
                .sim
                .pe_mut(i64::from(x), i64::from(y))?
                .mem
                .store(k, ElemTy::U32, 1)
                .map_err(|source| crate::pe::PeError::Memory {
                    x: i64::from(x),
                    y: i64::from(y),
                    source,
                })?;
        }
        self.loaded = Some(loaded);
        Ok(())
    }

    fn loaded(&mut self, what: &'static str) -> Result<&mut LoadedProgram, SdkError> {
        if self.stopped {
            return Err(SdkError::Stopped(what));
        }
        self.loaded.as_mut().ok_or(SdkError::NotLoaded(what))
    }

    /// Runs the simulator until nothing more happens.
    fn settle(&mut self, what: &'static str) -> Result<(), SdkError> {
        let budget = self.budget;
        let start = self.report.as_ref().map_or(0, |r| r.cycles + 1);
        let loaded = self.loaded(what)?;
        let pes: Vec<_> = loaded.pes.values().cloned().collect();
        let report = run(&mut loaded.sim, start.saturating_add(budget), &pes)?;
        self.report = Some(report);
        Ok(())
    }

    /// `run()`: starts the program (the tasks its `comptime` blocks activate).
    pub fn run(&mut self) -> Result<(), SdkError> {
        self.settle("run()")
    }

    /// `launch(name, nonblock)`: runs exported function `name` on every PE that exports it.
    pub fn launch(&mut self, name: &str, nonblock: bool) -> Result<(), SdkError> {
        self.launch_with(name, &[], nonblock)
    }

    /// `launch(name, *args)`: starts exported function `name` with `args` as its
    /// parameters (see `launch_args`), as [`SdkRuntime::launch`] does.
    pub fn launch_with(
        &mut self,
        name: &str,
        args: &[LaunchArg],
        _nonblock: bool,
    ) -> Result<(), SdkError> {
        let id = match self.launch_ids.get(name) {
            Some(id) => *id,
            None => {
                self.loaded("launch()")?;
                self.get_id(name)?;
                return Err(SdkError::WrongKind {
                    name: name.to_string(),
                    what: "data, not a function: launch() starts an exported function",
                });
            }
        };
        let program = &self.program;
        let targets: Vec<(u32, u32)> = program
            .tiles
            .iter()
            .filter(|(_, p)| {
                p.exports
                    .iter()
                    .any(|e| e.host_name == name && p.function(&e.symbol).is_some())
            })
            .map(|(k, _)| *k)
            .collect();
        for &(x, y) in &targets {
            let Some(p) = program.tiles.get(&(x, y)) else {
                continue;
            };
            let takes = p
                .exports
                .iter()
                .find(|e| e.host_name == name)
                .and_then(|e| p.function(&e.symbol))
                .map_or(0, |f| f.params.len());
            if takes != args.len() || args.len() > MAX_LAUNCH_ARGS {
                return Err(SdkError::LaunchArgs {
                    function: name.to_string(),
                    takes,
                    given: args.len(),
                });
            }
        }
        let words = launch_words(args);
        let loaded = self.loaded("launch()")?;
        for &(x, y) in &targets {
            let k = pe_mem_word(loaded, x, y)?;
            let (px, py) = (i64::from(x), i64::from(y));
            loaded
                .sim
                .pe_mut(px, py)?
                .mem
                .write(LAUNCH_ARGS_ARRAY, &words)
                .map_err(|source| crate::pe::PeError::Memory {
                    x: px,
                    y: py,
                    source,
                })?;
            loaded
                .sim
                .pe_mut(px, py)?
                .mem
                .store(k, ElemTy::U32, 0)
                .map_err(|source| crate::pe::PeError::Memory {
                    x: px,
                    y: py,
                    source,
                })?;
            loaded.sim.activate(px, py, id)?;
        }
        self.settle("launch()")?;
        let loaded = self.loaded("launch()")?;
        let mut blocked = Vec::new();
        for &(x, y) in &targets {
            let k = pe_mem_word(loaded, x, y)?;
            let v = loaded
                .sim
                .pe(i64::from(x), i64::from(y))?
                .mem
                .load(k, ElemTy::U32)
                .unwrap_or(1);
            if v == 0 {
                blocked.push(format!("({x}, {y})"));
            }
        }
        if !blocked.is_empty() {
            return Err(SdkError::CommandStreamBlocked {
                function: name.to_string(),
                pes: blocked.join(", "),
            });
        }
        Ok(())
    }

    /// Where symbol `name` is on PE `(x, y)`: its array, first element and element type.
    fn symbol(&self, name: &str, x: u32, y: u32) -> Result<(String, i64, ElemTy), SdkError> {
        let program = self
            .program
            .tiles
            .get(&(x, y))
            .ok_or_else(|| SdkError::UnknownSymbol(name.to_string()))?;
        let export = program
            .exports
            .iter()
            .find(|e| e.host_name == name)
            .ok_or_else(|| SdkError::NotOnPe {
                name: name.to_string(),
                x,
                y,
            })?;
        let (array, index) =
            program
                .symbol_array(&export.symbol)
                .ok_or_else(|| SdkError::WrongKind {
                    name: name.to_string(),
                    what: "not data in PE memory: memcpy copies to and from exported arrays",
                })?;
        let elem = program
            .arrays
            .iter()
            .find(|a| a.name == array)
            .map(|a| a.elem)
            .ok_or_else(|| SdkError::UnknownSymbol(name.to_string()))?;
        Ok((array, index, elem))
    }

    fn check_copy(&self, len: usize, rect: &MemcpyRect, streaming: bool) -> Result<(), SdkError> {
        if streaming {
            return Err(SdkError::Streaming);
        }
        let (width, height) = self.program.rectangle;
        if u64::from(rect.x) + u64::from(rect.w) > u64::from(width)
            || u64::from(rect.y) + u64::from(rect.h) > u64::from(height)
        {
            return Err(SdkError::Rectangle {
                x: rect.x,
                y: rect.y,
                w: rect.w,
                h: rect.h,
                width,
                height,
            });
        }
        if (len as u64) < rect.len() {
            return Err(SdkError::HostArray {
                len,
                w: rect.w,
                h: rect.h,
                elements: rect.elements,
                need: rect.len(),
            });
        }
        Ok(())
    }

    /// `memcpy_h2d(symbol, data, x, y, w, h, elements, streaming, order, data_type,
    /// nonblock)`: copies `data` (32-bit host words) into `symbol` on each PE of the
    /// rectangle.
    #[allow(clippy::too_many_arguments)]
    pub fn memcpy_h2d(
        &mut self,
        symbol: &str,
        data: &[u32],
        rect: MemcpyRect,
        streaming: bool,
        order: MemcpyOrder,
        data_type: MemcpyDataType,
        _nonblock: bool,
    ) -> Result<(), SdkError> {
        self.loaded("memcpy_h2d()")?;
        self.check_copy(data.len(), &rect, streaming)?;
        if self
            .program
            .layout
            .exports
            .iter()
            .any(|e| e.name == symbol && !e.mutable && !matches!(e.ty, Type::Fn { .. }))
        {
            return Err(SdkError::ReadOnly(symbol.to_string()));
        }
        // every PE is checked before any is written: a copy is whole or not at all
        let places = self.places(symbol, &rect, data_type)?;
        let loaded = self.loaded("memcpy_h2d()")?;
        for (i, j, word, elem) in places {
            let (x, y) = (rect.x + i, rect.y + j);
            let mem = &mut loaded.sim.pe_mut(i64::from(x), i64::from(y))?.mem;
            for k in 0..rect.elements {
                let bits = data[rect.host_index(order, i, j, k)];
                let bits = if data_type == MemcpyDataType::Bits16 {
                    bits & 0xffff
                } else {
                    bits
                };
                mem.store(word + i64::from(k) * i64::from(elem.words()), elem, bits)
                    .map_err(|source| crate::pe::PeError::Memory {
                        x: i64::from(x),
                        y: i64::from(y),
                        source,
                    })?;
            }
        }
        Ok(())
    }

    /// `memcpy_d2h(out, symbol, x, y, w, h, elements, streaming, order, data_type,
    /// nonblock)`: copies `symbol` of each PE of the rectangle into `out` (32-bit host
    /// words).
    #[allow(clippy::too_many_arguments)]
    pub fn memcpy_d2h(
        &mut self,
        out: &mut [u32],
        symbol: &str,
        rect: MemcpyRect,
        streaming: bool,
        order: MemcpyOrder,
        data_type: MemcpyDataType,
        _nonblock: bool,
    ) -> Result<(), SdkError> {
        self.loaded("memcpy_d2h()")?;
        self.check_copy(out.len(), &rect, streaming)?;
        let places = self.places(symbol, &rect, data_type)?;
        let loaded = self.loaded("memcpy_d2h()")?;
        let mut got = Vec::with_capacity(places.len() * rect.elements as usize);
        for (i, j, word, elem) in places {
            let (x, y) = (rect.x + i, rect.y + j);
            let mem = &loaded.sim.pe(i64::from(x), i64::from(y))?.mem;
            for k in 0..rect.elements {
                let bits = mem
                    .load(word + i64::from(k) * i64::from(elem.words()), elem)
                    .map_err(|source| crate::pe::PeError::Memory {
                        x: i64::from(x),
                        y: i64::from(y),
                        source,
                    })?;
                got.push((rect.host_index(order, i, j, k), bits));
            }
        }
        for (at, bits) in got {
            out[at] = bits;
        }
        Ok(())
    }

    /// For each PE `(i, j)` of the copy's rectangle (row by row): the first word of the
    /// symbol's elements and their type, every PE checked.
    fn places(
        &mut self,
        symbol: &str,
        rect: &MemcpyRect,
        data_type: MemcpyDataType,
    ) -> Result<Vec<(u32, u32, i64, ElemTy)>, SdkError> {
        let mut places = Vec::new();
        for j in 0..rect.h {
            for i in 0..rect.w {
                let (x, y) = (rect.x + i, rect.y + j);
                let (array, index, elem) = self.symbol(symbol, x, y)?;
                let word =
                    self.place(symbol, &array, index, elem, x, y, rect.elements, data_type)?;
                places.push((i, j, word, elem));
            }
        }
        Ok(places)
    }

    /// The first word of a copy of `elements` elements into `array` from `index` on PE
    /// `(x, y)`, checked against the array's size and the copy's data type.
    #[allow(clippy::too_many_arguments)]
    fn place(
        &mut self,
        symbol: &str,
        array: &str,
        index: i64,
        elem: ElemTy,
        x: u32,
        y: u32,
        elements: u32,
        data_type: MemcpyDataType,
    ) -> Result<i64, SdkError> {
        if elem.words() * 16 != data_type.bits() {
            return Err(SdkError::DataType {
                name: symbol.to_string(),
                x,
                y,
                elem: format!("{elem:?}").to_lowercase(),
                bits: data_type.bits(),
            });
        }
        let loaded = self.loaded("memcpy")?;
        let a = loaded
            .sim
            .pe(i64::from(x), i64::from(y))?
            .mem
            .array(array)
            .map_err(|source| crate::pe::PeError::Memory {
                x: i64::from(x),
                y: i64::from(y),
                source,
            })?;
        let len = a.elements().saturating_sub(index.max(0) as u64);
        if index < 0 || u64::from(elements) > len {
            return Err(SdkError::TooLong {
                name: symbol.to_string(),
                x,
                y,
                len,
                elements,
            });
        }
        Ok(a.word_addr + index * i64::from(elem.words()))
    }

    /// `stop()`: ends the run; gives the report of the whole run.
    pub fn stop(&mut self) -> Result<Option<RunReport>, SdkError> {
        if self.loaded.is_some() && !self.stopped {
            self.settle("stop()")?;
        }
        self.stopped = true;
        Ok(self.report.clone())
    }
}

/// The word of PE `(x, y)`'s command-stream flag.
fn pe_mem_word(loaded: &LoadedProgram, x: u32, y: u32) -> Result<i64, SdkError> {
    let (px, py) = (i64::from(x), i64::from(y));
    loaded
        .sim
        .pe(px, py)?
        .mem
        .array(CMD_STREAM_ARRAY)
        .map(|a| a.word_addr)
        .map_err(|source| {
            SdkError::Pe(crate::pe::PeError::Memory {
                x: px,
                y: py,
                source,
            })
        })
}
