//! Set-ups the simulator tests share (each test module uses some of them).

use npusim_cerebras::dsd::{FabIn, FabOut, Mem1d};
use npusim_cerebras::fabric::{Color, ColorConfig, Dir, Route, Wavelet};
use npusim_cerebras::ids::{
    ControlTaskId, DataTaskId, InputQueue, LocalTaskId, MicrothreadId, OutputQueue,
};
use npusim_cerebras::ops::FifoId;
use npusim_cerebras::sched::{Action, AsyncConfig, RunReport, Sim};
use npusim_cerebras::{Arch, Op};

/// A 1×1 grid on `arch`: `rx` streamed in from the west edge to the ramp (carrying `input`),
/// `tx` from the ramp out of the east edge.
pub fn host_pipe(
    arch: Arch,
    rx: Color,
    tx: Color,
    input: impl IntoIterator<Item = Wavelet>,
) -> Result<Sim, Box<dyn std::error::Error>> {
    let mut sim = Sim::new(arch, 1, 1)?;
    let f = sim.fabric_mut();
    f.set_color_config(
        0,
        0,
        rx,
        ColorConfig::fixed(Route::new(&[Dir::West], &[Dir::Ramp])),
    )?;
    f.set_color_config(
        0,
        0,
        tx,
        ColorConfig::fixed(Route::new(&[Dir::Ramp], &[Dir::East])),
    )?;
    f.open_edge(0, 0, Dir::West)?;
    f.open_edge(0, 0, Dir::East)?;
    f.stream_in(0, 0, Dir::West, input)?;
    Ok(sim)
}

/// A task body that adds 1 to the `u32` variable `name[0]` each time it runs.
pub fn counter(name: &'static str) -> Vec<Action> {
    vec![Action::call(move |ctx| {
        let n = ctx.pe.mem.read::<u32>(name)?[0];
        ctx.pe.mem.write(name, &[n + 1])?;
        Ok(Vec::new())
    })]
}

/// Seed 004's relay input on `recv`: 100 wavelets, every tenth a control wavelet.
pub fn relay_input(recv: Color) -> Vec<Wavelet> {
    (0..100u32)
        .map(|k| {
            if k % 10 == 9 {
                Wavelet::control(recv, 0x0012_0000 | k)
            } else {
                Wavelet::data32(recv, (k << 16) | (1000 + k))
            }
        })
        .collect()
}

/// Binds local task `main` (10), an asynchronous `@mov32(fifo, fin)`, and local task `drain`
/// (11), a synchronous `@mov32(out, fifo)`, on PE (0, 0).
pub fn fifo_producer_and_drain(
    sim: &mut Sim,
    fifo: FifoId,
    fin: FabIn,
    out: Mem1d,
) -> Result<(), Box<dyn std::error::Error>> {
    sim.bind_task(
        0,
        0,
        local_task(10),
        "main",
        vec![Action::spawn(
            Op::Mov32,
            fifo,
            vec![fin.into()],
            AsyncConfig::default(),
        )],
    )?;
    sim.bind_task(
        0,
        0,
        local_task(11),
        "drain",
        vec![Action::sync(Op::Mov32, out, vec![fifo.into()])],
    )?;
    Ok(())
}

/// Wavelets collected at the edges, as `(payload, is control)`.
pub type Collected = Vec<(u32, bool)>;

/// Seed 004's relay task on PE (0, 0): local task `buffer` (10) moving `in_dsd` into `fifo` and
/// `fifo` out to `out_dsd`, both asynchronously; activates it, runs up to 10 000 cycles and
/// returns the report with every collected wavelet as `(payload, is control)`.
pub fn run_relay(
    sim: &mut Sim,
    fifo: FifoId,
    in_dsd: FabIn,
    out_dsd: FabOut,
) -> Result<(RunReport, Collected), Box<dyn std::error::Error>> {
    sim.bind_task(
        0,
        0,
        local_task(10),
        "buffer",
        vec![
            Action::spawn(Op::Mov32, fifo, vec![in_dsd.into()], AsyncConfig::default()),
            Action::spawn(
                Op::Mov32,
                out_dsd,
                vec![fifo.into()],
                AsyncConfig::default(),
            ),
        ],
    )?;
    sim.activate(0, 0, local_task(10))?;
    let report = sim.run(10_000)?;
    let got = sim
        .collected()
        .iter()
        .map(|c| (c.wavelet.payload, c.wavelet.is_control()))
        .collect();
    Ok((report, got))
}

/// `@get_local_task_id(n)` (tests only: panics on a bad id).
pub fn local_task(n: impl Into<i64>) -> LocalTaskId {
    LocalTaskId::new(n.into()).expect("a local task id in 0..=30")
}

/// `@get_control_task_id(n)` (tests only: panics on a bad id).
pub fn control_task(n: impl Into<i64>) -> ControlTaskId {
    ControlTaskId::new(n.into()).expect("a control task id in 0..=63")
}

/// The data task of color `n` (WSE-2); on WSE-3 input queue `n`'s data task has the same id
/// (tests only: panics on a bad color).
pub fn data_task(n: impl Into<i64>) -> DataTaskId {
    DataTaskId::of_color(Color::new(n.into()).expect("a color in 0..=23"))
}

/// `@get_input_queue(n)` (tests only: panics on a bad id).
pub fn in_queue(n: impl Into<i64>) -> InputQueue {
    InputQueue::new(n.into()).expect("an input queue in 0..=7")
}

/// `@get_output_queue(n)` (tests only: panics on a bad id).
pub fn out_queue(n: impl Into<i64>) -> OutputQueue {
    OutputQueue::new(n.into()).expect("an output queue in 0..=7")
}

/// Microthread `n` (tests only: panics on a bad id).
pub fn ut(n: impl Into<i64>) -> MicrothreadId {
    MicrothreadId::new(n.into()).expect("a microthread id in 0..=7")
}
