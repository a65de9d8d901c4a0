//! SIMD fabric operands on the simulator: a host stream of packed wavelets through a SIMD
//! `fabin`, `@add16` and a SIMD `fabout` (seed 004 "SIMD Mode"; spec §0.6: extent counts
//! wavelets, low half first).

use crate::common;

use crate::common::*;

use npusim_cerebras::dsd::{FabIn, FabOut, SimdMode};
use npusim_cerebras::fabric::{Color, Wavelet};
use npusim_cerebras::sched::{Action, AsyncConfig};
use npusim_cerebras::{Arch, ElemTy, Op};

type Res = Result<(), Box<dyn std::error::Error>>;

/// Streams `payloads` through `out = in + 1` with both fabric DSDs in `mode`.
fn plus_one(
    arch: Arch,
    mode: SimdMode,
    payloads: &[u32],
) -> Result<Vec<u32>, Box<dyn std::error::Error>> {
    let (h2d, d2h) = (Color::new(1)?, Color::new(2)?);
    let n = payloads.len() as i64;
    let mut sim = common::host_pipe(
        arch,
        h2d,
        d2h,
        payloads.iter().map(|&p| Wavelet::data32(h2d, p)),
    )?;
    let pe = sim.pe_mut(0, 0)?;
    pe.mem.declare_with("one", &[1], &[1u16])?;
    pe.mem.declare("unused", ElemTy::U16, &[1])?;
    pe.queues.bind_input(in_queue(1), h2d)?;
    pe.queues.bind_output(out_queue(1), d2h)?;
    let one = pe.mem.mem1d(&format!("|i|{{{}}} -> one[0]", 2 * n))?;
    let fin = FabIn::new(arch, n, Some(in_queue(1)), None)?.with_simd_mode(mode);
    let mut fout = FabOut::new(arch, n, Some(out_queue(1)), None)?;
    fout.simd_mode = Some(mode);
    sim.bind_task(
        0,
        0,
        local_task(10),
        "main",
        vec![Action::spawn(
            Op::Add16,
            fout,
            vec![fin.into(), one.into()],
            AsyncConfig::default(),
        )],
    )?;
    sim.activate(0, 0, local_task(10))?;
    sim.run(10_000)?;
    Ok(sim.collected().iter().map(|c| c.wavelet.payload).collect())
}

#[test]
fn simd_pipeline_adds_one_to_both_halves_of_every_wavelet() -> Res {
    let payloads: Vec<u32> = (0..7u32)
        .map(|k| (0x7000 + 3 * k) << 16 | (0xFFFE + k) & 0xFFFF)
        .collect();
    let expected: Vec<u32> = payloads
        .iter()
        .map(|&p| {
            let lo = (p as u16).wrapping_add(1);
            let hi = ((p >> 16) as u16).wrapping_add(1);
            u32::from(hi) << 16 | u32::from(lo)
        })
        .collect();
    for arch in [Arch::Wse2, Arch::Wse3] {
        for mode in [SimdMode::Simd32, SimdMode::Simd64, SimdMode::Simd32Or64] {
            assert_eq!(
                plus_one(arch, mode, &payloads)?,
                expected,
                "{arch} {mode:?}"
            );
        }
    }
    Ok(())
}
