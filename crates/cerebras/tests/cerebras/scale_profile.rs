//! The scale profile (`Sim::set_scale_profile`) splits a run's CPU time without changing the
//! run: E11 on 16 x 12 PEs (a pinned size) on 2 threads with every cycle parallel gives its
//! pinned cycles and hash with the profile on, and the profile accounts for every cycle.

use npusim_cerebras::Arch;
use npusim_examples::cerebras::programs::e11_gemv_scaled::{Size, build_sized};

#[test]
fn profiling_a_run_changes_nothing_and_counts_every_cycle() -> Result<(), Box<dyn std::error::Error>>
{
    let size = Size {
        width: 16,
        height: 12,
        m_per_pe: 5,
        n_per_pe: 7,
    };
    for threads in [1, 2] {
        let mut sim = build_sized(Arch::Wse2, size)?;
        sim.set_threads(threads)?;
        sim.set_min_parallel_pes(1);
        sim.set_scale_profile(true);
        let report = sim.run(size.cycle_limit())?;
        // the pinned run (tests/cerebras/pinned_runs.rs, PINNED_SIZES)
        assert_eq!(report.cycles, 119);
        assert_eq!(report.trace_hash, 0xbcf2337a09637331);
        let p = sim.scale_profile().ok_or("no profile")?;
        // the last cycle (which changed nothing) is run too
        assert_eq!(p.cycles, report.cycles + 1, "{p:?}");
        assert!(p.inside_ns <= p.loop_ns, "{p:?}");
        if threads == 1 {
            assert_eq!(p.parallel_cycles, 0, "{p:?}");
            assert_eq!(p.parallel_ns(), 0, "{p:?}");
        } else {
            // every cycle had a PE awake to step
            assert!(p.parallel_cycles > 0, "{p:?}");
            assert!(p.balanced2_ns <= p.parallel_ns(), "{p:?}");
            assert!(p.critical_ns <= p.parallel_ns(), "{p:?}");
            let pes: u64 = p.threads.iter().map(|t| t.pes).sum();
            assert!(pes >= p.parallel_cycles, "{p:?}");
        }
        assert!(!p.report(Some(1)).is_empty());
        sim.set_scale_profile(false);
        assert!(sim.scale_profile().is_none());
    }
    Ok(())
}
