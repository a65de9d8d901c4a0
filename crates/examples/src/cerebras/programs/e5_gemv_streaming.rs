//! Tutorial program E5 of the Cerebras SDK (csl-examples), `gemv-09-streaming` on a 4×3 grid: as E4 (`y = A x + b`, M = 6, N = 8,
//! `A = arange(48)`), but `x` and `b` are streamed from the host and `y` is streamed back.
//! `x` enters the top row through its north edge; each PE's data task `recv_x` uses the
//! value (one `@fmacs`), then `@block`s itself and forwards the value south with an
//! asynchronous `@fmovs` whose completion `.unblock`s it, so one microthread serves one
//! wavelet at a time. Rows alternate colors (a color cannot come in and go out of one PE
//! with a fixed route). `b` enters the left column through its west edge (`recv_b`). The
//! reduction runs west to east as in E4 and the right column sends `y` out of its east edge:
//! `[30, 94, 158, 222, 286, 350]`.

use super::stream_counts::reduce_when_all_in;
use super::{Output, Program, ProgramError, Values, gemv_reference};

use npusim_cerebras::dsd::{FabIn, FabOut};
use npusim_cerebras::fabric::{Color, ColorConfig, Dir, Route, Wavelet};
use npusim_cerebras::ids::{DataTaskId, InputQueue, LocalTaskId, OutputQueue};
use npusim_cerebras::sched::{Action, AsyncConfig, RunReport, Sim};
use npusim_cerebras::{Arch, ElemTy, Op, Scalar};

const M: u64 = 6;
const N: u64 = 8;
const WIDTH: u64 = 4;
const HEIGHT: u64 = 3;
const MP: u64 = M / HEIGHT;
const NP: u64 = N / WIDTH;
/// Colors: host x into the top row, x down the rows (alternating), host b, host y.
const X_HOST: u8 = 4;
const B_HOST: u8 = 5;
const Y_HOST: u8 = 6;
/// Cycle limit of the run.
pub const CYCLE_LIMIT: u64 = 100_000;

/// The color row `r` receives `x` on.
fn x_in(r: u64) -> u8 {
    if r == 0 { X_HOST } else { 2 + (r % 2) as u8 }
}

fn route(rx: Dir, tx: &[Dir]) -> ColorConfig {
    ColorConfig::fixed(Route::new(&[rx], tx))
}

/// The colors of the PE at column `px`, row `py`.
#[derive(Clone, Copy)]
struct PeColors {
    /// `x` in: from the host (top row) or from the row above.
    xin: Color,
    /// `x` out to the row below.
    xout: Color,
    /// Partial sums out to the east.
    send: Color,
    /// Partial sums in from the west.
    recv: Color,
}

impl PeColors {
    /// The colors of the PE at column `px`, row `py`.
    fn at(px: u64, py: u64) -> Result<PeColors, ProgramError> {
        Ok(PeColors {
            xin: Color::new(i64::from(x_in(py)))?,
            xout: Color::new(i64::from(x_in(py + 1)))?,
            send: Color::new((px % 2) as i64)?,
            recv: Color::new(((px + 1) % 2) as i64)?,
        })
    }
}

/// Builds the program on `arch` with `x` and `b`.
pub fn build(arch: Arch, x: &[f32], b: &[f32]) -> Result<Sim, ProgramError> {
    let mut sim = Sim::new(arch, WIDTH as u32, HEIGHT as u32)?;
    for py in 0..HEIGHT {
        for px in 0..WIDTH {
            let colors = PeColors::at(px, py)?;
            routes(&mut sim, px, py, colors, x, b)?;
            pe_program(&mut sim, arch, px, py, colors)?;
        }
    }
    Ok(sim)
}

/// The routes of the PE at column `px`, row `py` (the layout), and the host's streams of `x`
/// into the top row and of `b` into the left column.
fn routes(
    sim: &mut Sim,
    px: u64,
    py: u64,
    PeColors {
        xin,
        xout,
        send,
        recv,
    }: PeColors,
    x: &[f32],
    b: &[f32],
) -> Result<(), ProgramError> {
    let (cx, cy) = (px as i64, py as i64);
    let last_col = px + 1 == WIDTH;
    let bottom = py + 1 == HEIGHT;
    let f = sim.fabric_mut();
    f.set_color_config(cx, cy, xin, route(Dir::North, &[Dir::Ramp]))?;
    if !bottom {
        f.set_color_config(cx, cy, xout, route(Dir::Ramp, &[Dir::South]))?;
    }
    if py == 0 {
        f.open_edge(cx, cy, Dir::North)?;
        let chunk = &x[(px * NP) as usize..((px + 1) * NP) as usize];
        f.stream_in(
            cx,
            cy,
            Dir::North,
            chunk.iter().map(|v| Wavelet::data32(xin, v.to_bits())),
        )?;
    }
    if px == 0 {
        let bc = Color::new(i64::from(B_HOST))?;
        f.set_color_config(cx, cy, bc, route(Dir::West, &[Dir::Ramp]))?;
        f.open_edge(cx, cy, Dir::West)?;
        let chunk = &b[(py * MP) as usize..((py + 1) * MP) as usize];
        f.stream_in(
            cx,
            cy,
            Dir::West,
            chunk.iter().map(|v| Wavelet::data32(bc, v.to_bits())),
        )?;
    }
    let yc = Color::new(i64::from(Y_HOST))?;
    if last_col {
        f.set_color_config(cx, cy, yc, route(Dir::Ramp, &[Dir::East]))?;
        f.open_edge(cx, cy, Dir::East)?;
    } else {
        f.set_color_config(cx, cy, send, route(Dir::Ramp, &[Dir::East]))?;
    }
    if px > 0 {
        f.set_color_config(cx, cy, recv, route(Dir::West, &[Dir::Ramp]))?;
    }
    Ok(())
}

/// The program of the PE at column `px`, row `py`: its memory, queues and tasks.
fn pe_program(
    sim: &mut Sim,
    arch: Arch,
    px: u64,
    py: u64,
    PeColors {
        xin,
        xout,
        send,
        recv,
    }: PeColors,
) -> Result<(), ProgramError> {
    let (cx, cy) = (px as i64, py as i64);
    let last_col = px + 1 == WIDTH;
    let bottom = py + 1 == HEIGHT;
    let reduce_id = LocalTaskId::new(10)?;
    // queue id = color id for every color a PE receives
    let data_task = |c: Color| -> Result<DataTaskId, ProgramError> {
        Ok(DataTaskId::on(arch, c, InputQueue::new(c.id().into())?))
    };
    let recv_b_id = data_task(Color::new(i64::from(B_HOST))?)?;
    let recv_x_id = data_task(xin)?;
    let yc = Color::new(i64::from(Y_HOST))?;
    let pe = sim.pe_mut(cx, cy)?;
    let a: Vec<f32> = (0..NP)
        .flat_map(|j| (0..MP).map(move |i| ((py * MP + i) * N + px * NP + j) as f32))
        .collect();
    pe.mem.declare_with("A", &[MP * NP], &a)?;
    pe.mem.declare("y", ElemTy::F32, &[MP])?;
    pe.mem.declare("counts", ElemTy::U32, &[2])?;
    // queue id = color id for every color a PE receives
    for c in [xin, recv, Color::new(i64::from(B_HOST))?] {
        pe.queues.bind_input(InputQueue::new(c.id().into())?, c)?;
    }
    pe.queues.bind_output(OutputQueue::new(1)?, xout)?;
    pe.queues
        .bind_output(OutputQueue::new(2)?, if last_col { yc } else { send })?;
    let y_dsd = pe.mem.mem1d(&format!("|i|{{{MP}}} -> y[i]"))?;
    let out = FabOut::new(arch, MP as i64, Some(OutputQueue::new(2)?), None)?;
    let fin = FabIn::new(
        arch,
        MP as i64,
        Some(InputQueue::new(recv.id().into())?),
        None,
    )?;
    let reduce = if px == 0 {
        Action::spawn(
            Op::Fmovs,
            out,
            vec![(&y_dsd).into()],
            AsyncConfig::default(),
        )
    } else {
        Action::spawn(
            Op::Fadds,
            out,
            vec![(&y_dsd).into(), fin.into()],
            AsyncConfig::default(),
        )
    };
    let needs_b = px == 0;
    let recv_x = recv_x_task(arch, bottom, needs_b, reduce_id, recv_x_id)?;
    sim.bind_task(cx, cy, recv_x_id, "recv_x", vec![recv_x])?;
    sim.bind_task(cx, cy, reduce_id, "reduce", vec![reduce])?;
    if needs_b {
        let recv_b = recv_b_task(reduce_id);
        sim.bind_task(cx, cy, recv_b_id, "recv_b", vec![recv_b])?;
    }
    Ok(())
}

/// The data task `recv_x`: one value of `x` multiplies its column of `A` into `y`; above the
/// bottom row the task blocks itself and forwards the value south asynchronously, the
/// forward's completion unblocking it.
fn recv_x_task(
    arch: Arch,
    bottom: bool,
    needs_b: bool,
    reduce_id: LocalTaskId,
    recv_x_id: DataTaskId,
) -> Result<Action, ProgramError> {
    let x_fwd = FabOut::new(arch, 1, Some(OutputQueue::new(1)?), None)?;
    Ok(Action::call(move |ctx| {
        let v = f32::from_bits(ctx.wavelet.map_or(0, |w| w.payload));
        let mut counts = ctx.pe.mem.read::<u32>("counts")?;
        let col = u64::from(counts[0]);
        counts[0] += 1;
        ctx.pe.mem.write("counts", &counts)?;
        let y = ctx.pe.mem.mem1d(&format!("|i|{{{MP}}} -> y[i]"))?;
        let a = ctx
            .pe
            .mem
            .mem1d(&format!("|i|{{{MP}}} -> A[i + {}]", col * MP))?;
        let mut next = vec![Action::sync(
            Op::Fmacs,
            &y,
            vec![(&y).into(), a.into(), Scalar::f32(v).into()],
        )];
        if !bottom {
            next.push(Action::Block(recv_x_id.into()));
            next.push(Action::spawn(
                Op::Fmovs,
                x_fwd.clone(),
                vec![Scalar::f32(v).into()],
                AsyncConfig::unblock(recv_x_id),
            ));
        }
        next.extend(reduce_when_all_in(
            &counts,
            NP,
            needs_b.then_some(MP),
            reduce_id,
        ));
        Ok(next)
    }))
}

/// The data task `recv_b` of the left column: one value of `b` added to its row of `y`.
fn recv_b_task(reduce_id: LocalTaskId) -> Action {
    Action::call(move |ctx| {
        let v = f32::from_bits(ctx.wavelet.map_or(0, |w| w.payload));
        let mut counts = ctx.pe.mem.read::<u32>("counts")?;
        let row = u64::from(counts[1]);
        counts[1] += 1;
        ctx.pe.mem.write("counts", &counts)?;
        let yi = ctx.pe.mem.mem1d(&format!("|i|{{1}} -> y[i + {row}]"))?;
        let mut next = vec![Action::sync(
            Op::Fadds,
            &yi,
            vec![(&yi).into(), Scalar::f32(v).into()],
        )];
        next.extend(reduce_when_all_in(&counts, NP, Some(MP), reduce_id));
        Ok(next)
    })
}

/// `y` as the host received it at the east edge, top to bottom.
fn results(sim: &Sim) -> Vec<f32> {
    let mut got: Vec<(u32, u64, f32)> = sim
        .collected()
        .iter()
        .map(|c| (c.y, c.cycle, f32::from_bits(c.wavelet.payload)))
        .collect();
    got.sort_by_key(|&(y, cycle, _)| (y, cycle));
    got.into_iter().map(|(_, _, v)| v).collect()
}

/// Builds the program with its inputs `x = 1`, `b = 2`.
pub fn build_default(arch: Arch) -> Result<Sim, ProgramError> {
    build(arch, &vec![1.0f32; N as usize], &vec![2.0f32; M as usize])
}

/// Runs the program on `arch` with `x = 1`, `b = 2`; returns `y` as the host receives it
/// (top to bottom) and the report.
pub fn run(arch: Arch) -> Result<(Vec<f32>, RunReport), ProgramError> {
    let mut sim = build_default(arch)?;
    let report = sim.run(CYCLE_LIMIT)?;
    Ok((results(&sim), report))
}

const Y_NAME: &str = "y (streamed out of the east edge, top to bottom)";

fn read(sim: &Sim) -> Result<Vec<Output>, ProgramError> {
    Ok(vec![Output::new(Y_NAME, Values::F32(results(sim)))])
}

/// `y = A x + b` with `A = arange(M*N)` row-major, `x = 1`, `b = 2`.
fn expected() -> Vec<Output> {
    let y = gemv_reference(M, N, |i, j| (i * N + j) as f64, |_| 1.0, |_| 2.0);
    vec![Output::new(Y_NAME, Values::F32(y))]
}

/// The registry entry.
pub const PROGRAM: Program = Program {
    name: "gemv-09-streaming",
    label: "E5",
    description: "y = A x + b on 4x3 PEs with x and b streamed in by the host and y streamed out",
    grid: "4x3",
    build: build_default,
    read,
    expected,
    cycle_limit: CYCLE_LIMIT,
};
