//! E11, the pattern of `gemv-08-routes-3` (E4) at any grid size: `y = A x + b` on a
//! `width` x `height` grid of PEs, each holding an `m_per_pe` x `n_per_pe` block of `A`
//! (column-major), so `A` is `(height * m_per_pe) x (width * n_per_pe)`. The top row sends its
//! part of `x` on color 2, broadcast down each column (RAMP -> SOUTH + RAMP); every `x`
//! wavelet starts the data task `recv_x`, which does one `@fmacs` over the next column of
//! the block. When all its `x` arrived, a PE reduces west to east on a checkerboard of
//! colors 0/1 (`@fmovs(out, y)` in the left column, `@fadds(out, y, in)` in the middle,
//! `@fadds(y, y, in)` in the right one, all asynchronous with `.activate = exit`). The right
//! column holds `A x + b`, `m_per_pe` rows per PE.
//!
//! It is not an SDK tutorial program: it is the one shipped program that scales, so that the
//! simulator can be measured on a grid of real size (`npusim bench` runs it on 64 x 64 PEs).
//! The registered instance ([`PROGRAM`]) is 8 x 8 PEs with 4 x 4 elements each.
//!
//! Its values are small integers, so every `@fmacs` is exact and the result equals a plain
//! matrix-vector product in any order: `A[i][j] = (3 i + 5 j) mod 11 - 5`,
//! `x[j] = j mod 7 - 3`, `b[i] = i mod 4`.

use std::sync::Arc;

use super::{Output, Program, ProgramError, Values, gemv_reference};

use npusim_cerebras::dsd::{FabIn, FabOut, Mem1d};
use npusim_cerebras::fabric::{Color, ColorConfig, Dir, Route};
use npusim_cerebras::ids::{DataTaskId, InputQueue, LocalTaskId, OutputQueue};
use npusim_cerebras::sched::{Action, AsyncConfig, Sim};
use npusim_cerebras::{Arch, ElemTy, Op, PeMemory, Scalar};

/// Color (and, on both architectures, data task id and input queue) of `x`.
const X: u8 = 2;

/// The size of one run: the grid and each PE's block of `A`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Size {
    /// PEs per row.
    pub width: u32,
    /// PEs per column.
    pub height: u32,
    /// Rows of `A` (and elements of `y`) per PE.
    pub m_per_pe: u32,
    /// Columns of `A` (and elements of `x`) per PE.
    pub n_per_pe: u32,
}

impl Size {
    /// The registered instance: 8 x 8 PEs, 4 x 4 elements each.
    pub const REGISTERED: Size = Size {
        width: 8,
        height: 8,
        m_per_pe: 4,
        n_per_pe: 4,
    };

    /// Rows of `A`.
    pub fn m(self) -> u64 {
        u64::from(self.height) * u64::from(self.m_per_pe)
    }

    /// Columns of `A`.
    pub fn n(self) -> u64 {
        u64::from(self.width) * u64::from(self.n_per_pe)
    }

    /// Number of PEs.
    pub fn pes(self) -> u64 {
        u64::from(self.width) * u64::from(self.height)
    }

    /// A cycle limit well above what the run needs: the `x` broadcast costs about
    /// `n_per_pe * (m_per_pe + 8)` cycles per PE, the reduction `width + m_per_pe`.
    pub const fn cycle_limit(self) -> u64 {
        let (w, h) = (self.width as u64, self.height as u64);
        let (mp, np) = (self.m_per_pe as u64, self.n_per_pe as u64);
        10_000 + 4 * (w + h + np * (mp + 8) + mp)
    }
}

/// `A[i][j]`.
pub fn a_value(i: u64, j: u64) -> f32 {
    ((3 * i + 5 * j) % 11) as f32 - 5.0
}

/// `x[j]`.
pub fn x_value(j: u64) -> f32 {
    (j % 7) as f32 - 3.0
}

/// `b[i]`.
pub fn b_value(i: u64) -> f32 {
    (i % 4) as f32
}

/// The values a build puts in `A`, `x` and `b`, by global index.
#[derive(Clone, Copy, Debug)]
pub struct Inputs {
    /// `A[i][j]`.
    pub a: fn(u64, u64) -> f32,
    /// `x[j]`.
    pub x: fn(u64) -> f32,
    /// `b[i]`.
    pub b: fn(u64) -> f32,
}

/// E11's own values ([`a_value`], [`x_value`], [`b_value`]).
pub const INPUTS: Inputs = Inputs {
    a: a_value,
    x: x_value,
    b: b_value,
};

fn route(rx: Dir, tx: &[Dir]) -> ColorConfig {
    ColorConfig::fixed(Route::new(&[rx], tx))
}

/// The columns of a PE's `mp` x `np` block of `A`, one DSD each (what
/// `@increment_dsd_offset` walks): `|i|{mp} -> A[i + j * mp]` for column `j`. The first is
/// lowered from its text, the others are it moved by `j * mp` elements (the same DSD the
/// text would give, without parsing one text per column).
#[cfg(test)]
fn column_dsds(mem: &PeMemory, mp: u64, np: u64) -> Result<Vec<Mem1d>, ProgramError> {
    let first = mem.mem1d(&format!("|i|{{{mp}}} -> A[i]"))?;
    columns_from(&first, mp, np)
}

/// The `np` columns of `mp` elements from the first one ([`column_dsds`]).
fn columns_from(first: &Mem1d, mp: u64, np: u64) -> Result<Vec<Mem1d>, ProgramError> {
    (0..np)
        .map(|j| {
            let offset = i64::from(first.offset) + (j * mp) as i64;
            let (stride, extent) = (i64::from(first.stride), i64::from(first.extent));
            Ok(Mem1d::new(first.base.clone(), offset, stride, extent)?)
        })
        .collect()
}

/// The memory DSDs of a PE's tasks: `|i|{mp} -> y[i]`, `|i|{np} -> x[i]` and the first column
/// `|i|{mp} -> A[i]`, lowered from their texts, and what `recv_x` reads at every wavelet.
#[derive(Clone, Debug, PartialEq)]
struct PeDsds {
    y: Mem1d,
    x: Mem1d,
    first_column: Mem1d,
    recv_x: Arc<RecvXDsds>,
}

/// What `recv_x` reads at every wavelet: `y` and the columns of `A`. One value, shared by the
/// tasks of every PE whose arrays lie at the same addresses (the DSDs are equal), so that the
/// task of each PE in turn finds them in the cache instead of its own copy in memory.
#[derive(Debug, PartialEq)]
struct RecvXDsds {
    y: Mem1d,
    columns: Vec<Mem1d>,
}

impl PeDsds {
    /// Lowers the texts on `mem`.
    fn parse(mem: &PeMemory, mp: u64, np: u64) -> Result<PeDsds, ProgramError> {
        let y = mem.mem1d(&format!("|i|{{{mp}}} -> y[i]"))?;
        let first_column = mem.mem1d(&format!("|i|{{{mp}}} -> A[i]"))?;
        let recv_x = Arc::new(RecvXDsds {
            y: y.clone(),
            columns: columns_from(&first_column, mp, np)?,
        });
        Ok(PeDsds {
            y,
            x: mem.mem1d(&format!("|i|{{{np}}} -> x[i]"))?,
            first_column,
            recv_x,
        })
    }

    /// The DSDs on `mem`: those of `last` (lowered on another PE) when `mem`'s `y`, `x` and
    /// `A` are at the same addresses with the same types and sizes (every PE of E11 declares
    /// the same arrays in the same order), else lowered from the texts. A DSD is its base,
    /// offset, stride and extent, so the DSDs are the ones the texts give either way, without
    /// parsing three texts per PE.
    fn on(
        mem: &PeMemory,
        mp: u64,
        np: u64,
        last: &mut Option<PeDsds>,
    ) -> Result<PeDsds, ProgramError> {
        if let Some(d) = last.as_ref()
            && mem.base("y")? == d.y.base
            && mem.base("x")? == d.x.base
            && mem.base("A")? == d.first_column.base
        {
            return Ok(d.clone());
        }
        let d = PeDsds::parse(mem, mp, np)?;
        *last = Some(d.clone());
        Ok(d)
    }
}

/// Builds the program of `size` on `arch` with E11's values; a size with no element per PE is
/// refused, and a block that does not fit a PE's memory is the memory's error.
pub fn build_sized(arch: Arch, size: Size) -> Result<Sim, ProgramError> {
    build_with(arch, size, INPUTS)
}

/// Builds the program of `size` on `arch` with the values `inputs` gives.
pub fn build_with(arch: Arch, size: Size, inputs: Inputs) -> Result<Sim, ProgramError> {
    if size.m_per_pe == 0 || size.n_per_pe == 0 {
        return Err(ProgramError::Size {
            what: format!(
                "a block of {} x {} elements per PE: each PE needs at least one row and one column",
                size.m_per_pe, size.n_per_pe
            ),
        });
    }
    let mut sim = Sim::new(arch, size.width, size.height)?;
    let (mp, np) = (u64::from(size.m_per_pe), u64::from(size.n_per_pe));
    let (width, height) = (u64::from(size.width), u64::from(size.height));
    let x_color = Color::new(i64::from(X))?;
    let x_queue = InputQueue::new(i64::from(X))?;
    let recv_x_id = DataTaskId::on(arch, x_color, x_queue);
    let reduce_id = LocalTaskId::new(10)?;
    let exit_id = LocalTaskId::new(11)?;
    let send_x_id = LocalTaskId::new(12)?;
    let mut last_dsds = None;
    for py in 0..height {
        for px in 0..width {
            let (x, y) = (px as i64, py as i64);
            let f = sim.fabric_mut();
            // x: down each column, every PE keeps a copy
            let x_route = match py {
                _ if height == 1 => route(Dir::Ramp, &[Dir::Ramp]),
                0 => route(Dir::Ramp, &[Dir::South, Dir::Ramp]),
                _ if py == height - 1 => route(Dir::North, &[Dir::Ramp]),
                _ => route(Dir::North, &[Dir::South, Dir::Ramp]),
            };
            f.set_color_config(x, y, x_color, x_route)?;
            // y: west to east, column px sends on color px % 2
            let send = Color::new((px % 2) as i64)?;
            let recv = Color::new(((px + 1) % 2) as i64)?;
            if px + 1 < width {
                f.set_color_config(x, y, send, route(Dir::Ramp, &[Dir::East]))?;
            }
            if px > 0 {
                f.set_color_config(x, y, recv, route(Dir::West, &[Dir::Ramp]))?;
            }
            let pe = sim.pe_mut(x, y)?;
            let a: Vec<f32> = (0..np)
                .flat_map(|j| (0..mp).map(move |i| (inputs.a)(py * mp + i, px * np + j)))
                .collect();
            pe.mem.declare_with("A", &[mp * np], &a)?;
            let xs: Vec<f32> = (0..np).map(|j| (inputs.x)(px * np + j)).collect();
            pe.mem.declare_with("x", &[np], &xs)?;
            let y0: Vec<f32> = (0..mp)
                .map(|i| {
                    if px == 0 {
                        (inputs.b)(py * mp + i)
                    } else {
                        0.0
                    }
                })
                .collect();
            pe.mem.declare_with("y", &[mp], &y0)?;
            pe.mem.declare("count", ElemTy::U32, &[1])?;
            pe.mem.declare("exits", ElemTy::U32, &[1])?;
            pe.queues.bind_input(x_queue, x_color)?;
            pe.queues.bind_output(OutputQueue::new(1)?, x_color)?;
            pe.queues.bind_input(InputQueue::new(3)?, recv)?;
            pe.queues.bind_output(OutputQueue::new(2)?, send)?;
            let PeDsds {
                y: y_dsd,
                x: x_dsd,
                recv_x: dsds,
                ..
            } = PeDsds::on(&pe.mem, mp, np, &mut last_dsds)?;
            let out = FabOut::new(arch, mp as i64, Some(OutputQueue::new(2)?), None)?;
            let fin = FabIn::new(arch, mp as i64, Some(InputQueue::new(3)?), None)?;
            let exit = AsyncConfig::activate(exit_id);
            let reduce = if width == 1 {
                Action::Activate(exit_id)
            } else if px == 0 {
                Action::spawn(Op::Fmovs, out, vec![(&y_dsd).into()], exit)
            } else if px == width - 1 {
                Action::spawn(Op::Fadds, &y_dsd, vec![(&y_dsd).into(), fin.into()], exit)
            } else {
                Action::spawn(Op::Fadds, out, vec![(&y_dsd).into(), fin.into()], exit)
            };
            // `count` by its address: no lookup of its name, no vector, per wavelet; the code
            // touches only the PE's memory, so the simulator may run it ahead of its cycle
            let count_at = pe.mem.base("count")?.word_addr;
            let recv_x = Action::call_local(move |ctx| {
                let data = f32::from_bits(ctx.wavelet.map_or(0, |w| w.payload));
                let count = ctx.mem.load(count_at, ElemTy::U32)?;
                ctx.mem.store(count_at, ElemTy::U32, count + 1)?;
                let column = &dsds.columns[count as usize % dsds.columns.len()];
                let mut next = vec![Action::sync(
                    Op::Fmacs,
                    &dsds.y,
                    vec![(&dsds.y).into(), column.into(), Scalar::f32(data).into()],
                )];
                if u64::from(count) + 1 == np {
                    next.push(Action::Activate(reduce_id));
                }
                Ok(next)
            });
            let exit_body = Action::call(|ctx| {
                let n = ctx.pe.mem.read::<u32>("exits")?[0];
                ctx.pe.mem.write("exits", &[n + 1])?;
                Ok(Vec::new())
            });
            sim.bind_task(x, y, recv_x_id, "recv_x", vec![recv_x])?;
            sim.bind_task(x, y, reduce_id, "reduce", vec![reduce])?;
            sim.bind_task(x, y, exit_id, "exit", vec![exit_body])?;
            if py == 0 {
                let x_out = FabOut::new(arch, np as i64, Some(OutputQueue::new(1)?), None)?;
                let send_x =
                    Action::spawn(Op::Fmovs, x_out, vec![x_dsd.into()], AsyncConfig::default());
                sim.bind_task(x, y, send_x_id, "send_x", vec![send_x])?;
                sim.activate(x, y, send_x_id)?;
            }
        }
    }
    Ok(sim)
}

/// `y` of the right column (top to bottom) and each PE's `exit` count (row-major), of a
/// finished run of `size`.
pub fn results(sim: &Sim, size: Size) -> Result<(Vec<f32>, Vec<u32>), ProgramError> {
    let (width, height) = (i64::from(size.width), i64::from(size.height));
    let mut y = Vec::new();
    for py in 0..height {
        y.extend(sim.pe(width - 1, py)?.mem.read::<f32>("y")?);
    }
    let mut exits = Vec::new();
    for py in 0..height {
        for px in 0..width {
            exits.push(sim.pe(px, py)?.mem.read::<u32>("exits")?[0]);
        }
    }
    Ok((y, exits))
}

/// `A x + b` of `size`, computed directly (f64, exact for these integers, rounded to f32).
pub fn expected_y(size: Size) -> Vec<f32> {
    gemv_reference(
        size.m(),
        size.n(),
        |i, j| f64::from(a_value(i, j)),
        |j| f64::from(x_value(j)),
        |i| f64::from(b_value(i)),
    )
}

const Y_NAME: &str = "y (right column, top to bottom)";
const EXITS_NAME: &str = "exit task runs (row-major)";

fn build(arch: Arch) -> Result<Sim, ProgramError> {
    build_sized(arch, Size::REGISTERED)
}

fn read(sim: &Sim) -> Result<Vec<Output>, ProgramError> {
    let (y, exits) = results(sim, Size::REGISTERED)?;
    Ok(vec![
        Output::new(Y_NAME, Values::F32(y)),
        Output::new(EXITS_NAME, Values::U32(exits)),
    ])
}

/// `y = A x + b`; every `exit` runs once.
fn expected() -> Vec<Output> {
    let size = Size::REGISTERED;
    vec![
        Output::new(Y_NAME, Values::F32(expected_y(size))),
        Output::new(EXITS_NAME, Values::U32(vec![1; size.pes() as usize])),
    ]
}

/// The registry entry (the 8 x 8 instance).
pub const PROGRAM: Program = Program {
    name: "gemv-scaled",
    label: "E11",
    description: "y = A x + b as E4 at any size (8x8 PEs here, 64x64 in the bench): x multicast down columns, partial sums reduced west to east",
    grid: "8x8",
    build,
    read,
    expected,
    cycle_limit: Size::REGISTERED.cycle_limit(),
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_columns_are_the_dsds_of_their_texts() -> Result<(), ProgramError> {
        for (mp, np) in [(1, 1), (2, 3), (4, 4), (16, 16), (3, 40)] {
            let mut mem = PeMemory::new(Arch::Wse2);
            mem.declare("x", ElemTy::F32, &[7])?;
            mem.declare("A", ElemTy::F32, &[mp * np])?;
            let parsed = (0..np)
                .map(|j| mem.mem1d(&format!("|i|{{{mp}}} -> A[i + {}]", j * mp)))
                .collect::<Result<Vec<_>, _>>()?;
            assert_eq!(column_dsds(&mem, mp, np)?, parsed, "{mp} x {np}");
        }
        Ok(())
    }

    /// A memory with E11's arrays, `pad` words of another array declared first (moving them).
    fn memory(mp: u64, np: u64, pad: u64, a_ty: ElemTy) -> Result<PeMemory, ProgramError> {
        let mut mem = PeMemory::new(Arch::Wse2);
        if pad > 0 {
            mem.declare("pad", ElemTy::U16, &[pad])?;
        }
        mem.declare("A", a_ty, &[mp * np])?;
        mem.declare("x", ElemTy::F32, &[np])?;
        mem.declare("y", ElemTy::F32, &[mp])?;
        Ok(mem)
    }

    #[test]
    fn reused_dsds_are_those_of_their_texts_on_every_memory() -> Result<(), ProgramError> {
        let mut last = None;
        for (mp, np, pad, a_ty) in [
            (4, 4, 0, ElemTy::F32),
            (4, 4, 0, ElemTy::F32),
            (4, 4, 2, ElemTy::F32),
            (4, 4, 2, ElemTy::F32),
            (4, 4, 2, ElemTy::F16),
            (3, 5, 0, ElemTy::F32),
            (16, 16, 0, ElemTy::F32),
            (16, 16, 0, ElemTy::F32),
        ] {
            let mem = memory(mp, np, pad, a_ty)?;
            let parsed = PeDsds::parse(&mem, mp, np)?;
            assert_eq!(
                PeDsds::on(&mem, mp, np, &mut last)?,
                parsed,
                "{mp} x {np}, {pad} words before, A of {a_ty:?}"
            );
        }
        // a memory whose arrays moved does not get the DSDs of the last one
        let unmoved = PeDsds::parse(&memory(4, 4, 0, ElemTy::F32)?, 4, 4)?;
        let moved = memory(4, 4, 2, ElemTy::F32)?;
        assert_ne!(unmoved, PeDsds::parse(&moved, 4, 4)?);
        let mut last = Some(unmoved);
        assert_eq!(
            PeDsds::on(&moved, 4, 4, &mut last)?,
            PeDsds::parse(&moved, 4, 4)?
        );
        Ok(())
    }
}
