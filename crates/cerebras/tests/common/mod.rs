//! Set-ups the simulator tests share (each test file uses some of them).
#![allow(dead_code)]

use npusim_cerebras::Arch;
use npusim_cerebras::fabric::{Color, ColorConfig, Dir, Route, Wavelet};
use npusim_cerebras::sched::{Action, Sim};

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
