//! Spec §13 E7, `pipeline-01-basic` on one PE: the host streams `size` i16 values in on one
//! color; one asynchronous `@add16` adds 1 from a stride-0 memory DSD and sends the sums out
//! on another color: `out = in + 1`.
//!
//! The CSL it models:
//!
//! ```text
//! const one = [1]i16{ 1 };
//! const in_dsd  = @get_dsd(fabin_dsd,  .{ .extent = size, .fabric_color = h2d,
//!                                         .input_queue = @get_input_queue(1) });
//! const out_dsd = @get_dsd(fabout_dsd, .{ .extent = size, .fabric_color = d2h,
//!                                         .output_queue = @get_output_queue(1) });
//! const one_dsd = @get_dsd(mem1d_dsd,  .{ .tensor_access = |i|{size} -> one[0] });
//! task main() void { @add16(out_dsd, in_dsd, one_dsd, .{ .async = true }); }
//! ```
//!
//! The memcpy PEs are not simulated: the host stream enters through the PE's west edge and
//! the results leave through its east edge (spec §13's porting recipe).

use std::error::Error;

use npusim_cerebras::dsd::{FabIn, FabOut};
use npusim_cerebras::fabric::{Color, ColorConfig, Dir, Route, Wavelet};
use npusim_cerebras::sim::{Action, AsyncConfig, RunReport, Sim, TaskKind};
use npusim_cerebras::{Arch, ElemTy, Op};

/// Cycle limit of the run.
pub const CYCLE_LIMIT: u64 = 10_000;

/// Runs the program on `arch` with `input`; returns the values received and the report.
pub fn run(arch: Arch, input: &[i16]) -> Result<(Vec<i16>, RunReport), Box<dyn Error>> {
    let (h2d, d2h) = (Color::new(1)?, Color::new(2)?);
    let size = input.len() as i64;
    let mut sim = Sim::new(arch, 1, 1)?;
    let f = sim.fabric_mut();
    f.set_color_config(
        0,
        0,
        h2d,
        ColorConfig::fixed(Route::new(&[Dir::West], &[Dir::Ramp])),
    )?;
    f.set_color_config(
        0,
        0,
        d2h,
        ColorConfig::fixed(Route::new(&[Dir::Ramp], &[Dir::East])),
    )?;
    f.open_edge(0, 0, Dir::West)?;
    f.open_edge(0, 0, Dir::East)?;
    f.stream_in(
        0,
        0,
        Dir::West,
        input.iter().map(|&v| Wavelet::data16(h2d, 0, v as u16)),
    )?;
    let pe = sim.pe_mut(0, 0)?;
    pe.mem.declare_with("one", &[1], &[1i16])?;
    pe.mem.declare("unused", ElemTy::I16, &[1])?;
    pe.queues.bind_input(1, h2d)?;
    pe.queues.bind_output(1, d2h)?;
    let one = pe.mem.mem1d(&format!("|i|{{{size}}} -> one[0]"))?;
    let fin = FabIn::new(arch, size, Some(1), None)?;
    let fout = FabOut::new(arch, size, Some(1), None)?;
    sim.bind_task(
        0,
        0,
        TaskKind::Local,
        10,
        "main",
        vec![Action::spawn(
            Op::Add16,
            fout,
            vec![fin.into(), one.into()],
            AsyncConfig::default(),
        )],
    )?;
    sim.activate(0, 0, "main")?;
    let report = sim.run(CYCLE_LIMIT)?;
    let out = sim
        .collected()
        .iter()
        .map(|c| c.wavelet.payload as u16 as i16)
        .collect();
    Ok((out, report))
}

#[allow(dead_code)]
fn main() -> Result<(), Box<dyn Error>> {
    let input: Vec<i16> = (0..12).collect();
    let (out, report) = run(Arch::Wse2, &input)?;
    println!("in  = {input:?}");
    println!("out = {out:?}");
    println!(
        "cycles = {}, trace hash = {:016x}",
        report.cycles, report.trace_hash
    );
    Ok(())
}
