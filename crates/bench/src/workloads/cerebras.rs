//! The Cerebras simulator at the size of a real grid: E11 (`gemv-scaled`, `y = A x + b` in
//! the pattern of the SDK's `gemv-08-routes-3`) built and run on 64 x 64 PEs with the
//! tutorial's 2 x 2 block of `A` per PE and with 16 x 16 blocks, and on 8 x 8 PEs with 16 x 16
//! for comparison. Counted in simulated PE-cycles (PEs x cycles of the run, idle ones
//! included) per second of building and running it.

use std::hint::black_box;

use npusim_cerebras::Arch;
use npusim_examples::cerebras::programs::e11_gemv_scaled::{
    Size, build_sized, expected_y, results,
};

use super::{Unit, Workload};
use crate::error::BenchError;

/// `(width, height, rows and columns of A per PE, cycles of the run on WSE-2)`: the cycle
/// count is checked on every call, so a simulator that changed its timing cannot report a
/// rate for the wrong work.
const GRIDS: [(u32, u32, u32, u64); 3] = [(64, 64, 2, 271), (64, 64, 16, 565), (8, 8, 16, 341)];

/// The `gemv-scaled` workloads on `threads` threads.
pub(super) fn workloads(threads: usize) -> Vec<Workload<'static>> {
    GRIDS
        .into_iter()
        .map(|(width, height, block, cycles)| {
            let size = Size {
                width,
                height,
                m_per_pe: block,
                n_per_pe: block,
            };
            let name = format!("cerebras gemv-scaled {width}x{height} {block}x{block} per PE");
            let what = name.clone();
            // the check's `A x + b`, computed once: the rate counts building, running and
            // reading the simulation, not the reference product (1 Mi multiply-adds at 16x16)
            let expected = expected_y(size);
            Workload {
                name,
                unit: Unit::PeCycles,
                units: size.pes() * cycles,
                // A simulated run is bounded by its PE-cycles, not by the bytes of A, x, b
                // and y: no copy baseline (the table shows `-`).
                input_bytes: 0,
                output_bytes: 0,
                threads,
                call: Box::new(move || {
                    let fail = |message: String| BenchError::Workload {
                        workload: what.clone(),
                        message,
                    };
                    let mut sim = build_sized(Arch::Wse2, size).map_err(|e| fail(e.to_string()))?;
                    sim.set_threads(threads).map_err(|e| fail(e.to_string()))?;
                    let report = sim
                        .run(size.cycle_limit())
                        .map_err(|e| fail(e.to_string()))?;
                    if report.cycles != cycles {
                        return Err(fail(format!(
                            "ran {} cycles, {cycles} expected",
                            report.cycles
                        )));
                    }
                    let (y, _) = results(&sim, size).map_err(|e| fail(e.to_string()))?;
                    if y != expected {
                        return Err(fail("y is not A x + b".into()));
                    }
                    black_box(&sim);
                    Ok(())
                }),
            }
        })
        .collect()
}
