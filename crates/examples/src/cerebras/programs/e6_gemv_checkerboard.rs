//! Tutorial program E6 of the Cerebras SDK (csl-examples), `gemv-checkerboard-pattern` on a 4×4 grid in f16: `y = A x + b` with
//! M = 32, N = 16. PE `(px, py)` holds the 8×4 block of `A` at rows `8py..`, columns `4px..`
//! (row-major). `x` enters the top row through its north edge with each value's local column
//! in the wavelet's high half and is multicast down the columns; the two-argument data task
//! `recv_x(data: f16, idx: u16)` does `@fmach(y, y, A_col, data, .{ .index = idx })` on a
//! `wavelet_index_offset` DSD walking column 0 (stride 4), so `.index` picks the column. `b`
//! enters the left column through its west edge. The partial sums are reduced west to east
//! on a checkerboard of colors 0/1 with asynchronous `@faddh` and the right column sends `y`
//! out of its east edge. With small integer inputs every f16 step is exact, so the result is
//! checked bit for bit against integer arithmetic.

use super::stream_counts::reduce_when_all_in;
use super::{Output, Program, ProgramError, Values};

use half::f16;
use npusim_cerebras::dsd::{FabIn, FabOut, Mem1d};
use npusim_cerebras::fabric::{Color, ColorConfig, Dir, Route, Wavelet};
use npusim_cerebras::ids::{DataTaskId, InputQueue, LocalTaskId, OutputQueue};
use npusim_cerebras::sched::{Action, AsyncConfig, Sim};
use npusim_cerebras::{Arch, ElemTy, Op, OpConfig, Scalar};

/// Rows of `A`.
pub const M: u64 = 32;
/// Columns of `A`.
pub const N: u64 = 16;
const SIDE: u64 = 4;
const MP: u64 = M / SIDE;
const NP: u64 = N / SIDE;
const X_HOST: u8 = 4;
const B_HOST: u8 = 5;
const Y_HOST: u8 = 6;
/// Cycle limit of the run.
pub const CYCLE_LIMIT: u64 = 100_000;

/// `A[i][j]`, small integers.
pub fn a(i: u64, j: u64) -> i64 {
    ((i + 2 * j) % 7) as i64 - 3
}

/// `x[j]`.
pub fn x(j: u64) -> i64 {
    (j % 3) as i64 - 1
}

/// `b[i]`.
pub fn b(i: u64) -> i64 {
    (i % 5) as i64
}

fn h(v: i64) -> u16 {
    f16::from_f32(v as f32).to_bits()
}

fn route(rx: Dir, tx: &[Dir]) -> ColorConfig {
    ColorConfig::fixed(Route::new(&[rx], tx))
}

/// Builds the program on `arch`.
pub fn build(arch: Arch) -> Result<Sim, ProgramError> {
    let mut sim = Sim::new(arch, SIDE as u32, SIDE as u32)?;
    for py in 0..SIDE {
        for px in 0..SIDE {
            routes(&mut sim, px, py)?;
            pe_program(&mut sim, arch, px, py)?;
        }
    }
    Ok(sim)
}

/// The host's colors: `x` into the top row, `b` into the left column, `y` out of the right.
fn host_colors() -> Result<(Color, Color, Color), ProgramError> {
    Ok((
        Color::new(i64::from(X_HOST))?,
        Color::new(i64::from(B_HOST))?,
        Color::new(i64::from(Y_HOST))?,
    ))
}

/// The colors the PE at column `px` sends its partial sums east on and receives them from
/// the west on (alternating by column).
fn sum_colors(px: u64) -> Result<(Color, Color), ProgramError> {
    Ok((
        Color::new((px % 2) as i64)?,
        Color::new(((px + 1) % 2) as i64)?,
    ))
}

/// The routes of the PE at column `px`, row `py` (the layout), and the host's streams of `x`
/// into the top row and of `b` into the left column.
fn routes(sim: &mut Sim, px: u64, py: u64) -> Result<(), ProgramError> {
    let (cx, cy) = (px as i64, py as i64);
    let (xc, bc, yc) = host_colors()?;
    let (send, recv) = sum_colors(px)?;
    let last_col = px + 1 == SIDE;
    let f = sim.fabric_mut();
    let down: &[Dir] = if py + 1 == SIDE {
        &[Dir::Ramp]
    } else {
        &[Dir::Ramp, Dir::South]
    };
    f.set_color_config(cx, cy, xc, route(Dir::North, down))?;
    if py == 0 {
        f.open_edge(cx, cy, Dir::North)?;
        let xs = (0..NP).map(|j| Wavelet::data16(xc, j as u16, h(x(px * NP + j))));
        f.stream_in(cx, cy, Dir::North, xs)?;
    }
    if px == 0 {
        f.set_color_config(cx, cy, bc, route(Dir::West, &[Dir::Ramp]))?;
        f.open_edge(cx, cy, Dir::West)?;
        let bs = (0..MP).map(|i| Wavelet::data16(bc, 0, h(b(py * MP + i))));
        f.stream_in(cx, cy, Dir::West, bs)?;
    }
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
fn pe_program(sim: &mut Sim, arch: Arch, px: u64, py: u64) -> Result<(), ProgramError> {
    let (cx, cy) = (px as i64, py as i64);
    let (xc, bc, yc) = host_colors()?;
    let (send, recv) = sum_colors(px)?;
    let last_col = px + 1 == SIDE;
    // queue id = color id for every color a PE receives
    let recv_x_id = DataTaskId::on(arch, xc, InputQueue::new(xc.id().into())?);
    let recv_b_id = DataTaskId::on(arch, bc, InputQueue::new(bc.id().into())?);
    let reduce_id = LocalTaskId::new(10)?;
    let pe = sim.pe_mut(cx, cy)?;
    let block: Vec<f16> = (0..MP)
        .flat_map(|i| (0..NP).map(move |j| f16::from_f32(a(py * MP + i, px * NP + j) as f32)))
        .collect();
    pe.mem.declare_with("A", &[MP, NP], &block)?;
    pe.mem.declare("mt", ElemTy::F16, &[MP])?;
    pe.mem.declare("bvec", ElemTy::F16, &[MP])?;
    pe.mem.declare("counts", ElemTy::U32, &[2])?;
    for c in [xc, recv, bc] {
        pe.queues.bind_input(InputQueue::new(c.id().into())?, c)?;
    }
    pe.queues
        .bind_output(OutputQueue::new(2)?, if last_col { yc } else { send })?;
    let mt = pe.mem.mem1d(&format!("|i|{{{MP}}} -> mt[i]"))?;
    let bvec = pe.mem.mem1d(&format!("|i|{{{MP}}} -> bvec[i]"))?;
    let a_col = pe
        .mem
        .mem1d(&format!("|i|{{{MP}}} -> A[i, 0]"))?
        .with_wavelet_index_offset(true);
    let out = FabOut::new(arch, MP as i64, Some(OutputQueue::new(2)?), None)?;
    let fin = FabIn::new(
        arch,
        MP as i64,
        Some(InputQueue::new(recv.id().into())?),
        None,
    )?;
    let reduce = if px == 0 {
        Action::spawn(
            Op::Faddh,
            out,
            vec![(&mt).into(), bvec.into()],
            AsyncConfig::default(),
        )
    } else {
        Action::spawn(
            Op::Faddh,
            out,
            vec![fin.into(), (&mt).into()],
            AsyncConfig::default(),
        )
    };
    let needs_b = px == 0;
    sim.bind_task(
        cx,
        cy,
        recv_x_id,
        "recv_x",
        vec![recv_x_task(mt, a_col, needs_b, reduce_id)],
    )?;
    sim.bind_task(cx, cy, reduce_id, "reduce", vec![reduce])?;
    if needs_b {
        sim.bind_task(cx, cy, recv_b_id, "recv_b", vec![recv_b_task(reduce_id)])?;
    }
    Ok(())
}

/// The data task `recv_x`: one value of `x` (its column in the wavelet's index) multiplies
/// that column of `A` into `mt`.
fn recv_x_task(mt: Mem1d, a_col: Mem1d, needs_b: bool, reduce_id: LocalTaskId) -> Action {
    Action::call(move |ctx| {
        let w = ctx.wavelet.unwrap_or(Wavelet::data32(Color::new(0)?, 0));
        let mut counts = ctx.pe.mem.read::<u32>("counts")?;
        counts[0] += 1;
        ctx.pe.mem.write("counts", &counts)?;
        let mut next = vec![Action::Op {
            op: Op::Fmach,
            dest: (&mt).into(),
            srcs: vec![
                (&mt).into(),
                a_col.clone().into(),
                Scalar::from_bits(ElemTy::F16, u32::from(w.low16())).into(),
            ],
            cfg: OpConfig {
                index: Some(w.index()),
            },
            asynchronous: None,
        }];
        next.extend(reduce_when_all_in(
            &counts,
            NP,
            needs_b.then_some(MP),
            reduce_id,
        ));
        Ok(next)
    })
}

/// The data task `recv_b` of the left column: one value of `b` stored in `bvec`.
fn recv_b_task(reduce_id: LocalTaskId) -> Action {
    Action::call(move |ctx| {
        let w = ctx.wavelet.unwrap_or(Wavelet::data32(Color::new(0)?, 0));
        let mut counts = ctx.pe.mem.read::<u32>("counts")?;
        let mut bv = ctx.pe.mem.read::<f16>("bvec")?;
        if let Some(slot) = bv.get_mut(counts[1] as usize) {
            *slot = f16::from_bits(w.low16());
        }
        counts[1] += 1;
        ctx.pe.mem.write("bvec", &bv)?;
        ctx.pe.mem.write("counts", &counts)?;
        Ok(reduce_when_all_in(&counts, NP, Some(MP), reduce_id))
    })
}

/// `y` (f16 bits) as the host received it at the east edge, top to bottom.
fn results(sim: &Sim) -> Vec<u16> {
    let mut got: Vec<(u32, u64, u16)> = sim
        .collected()
        .iter()
        .map(|c| (c.y, c.cycle, c.wavelet.low16()))
        .collect();
    got.sort_by_key(|&(y, cycle, _)| (y, cycle));
    got.into_iter().map(|(_, _, v)| v).collect()
}

/// Runs the program on `arch`; returns `y` (f16 bits) as the host receives it, top to bottom.
pub fn run(arch: Arch) -> Result<Vec<u16>, ProgramError> {
    let mut sim = build(arch)?;
    sim.run(CYCLE_LIMIT)?;
    Ok(results(&sim))
}

/// `A x + b` in integers, as f16 bits.
pub fn expected() -> Vec<u16> {
    (0..M)
        .map(|i| h((0..N).map(|j| a(i, j) * x(j)).sum::<i64>() + b(i)))
        .collect()
}

const Y_NAME: &str = "y (streamed out of the east edge, top to bottom)";

fn halves(bits: Vec<u16>) -> Values {
    Values::F16(bits.into_iter().map(f16::from_bits).collect())
}

fn read(sim: &Sim) -> Result<Vec<Output>, ProgramError> {
    Ok(vec![Output::new(Y_NAME, halves(results(sim)))])
}

/// The registry entry.
pub const PROGRAM: Program = Program {
    name: "gemv-checkerboard-pattern",
    label: "E6",
    description: "y = A x + b in f16 on 4x4 PEs: x by column index (wavelet_index_offset), checkerboard reduction",
    grid: "4x4",
    build,
    read,
    expected: || vec![Output::new(Y_NAME, halves(expected()))],
    cycle_limit: CYCLE_LIMIT,
};
