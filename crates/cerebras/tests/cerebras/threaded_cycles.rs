//! Threaded cycles on a grid above the default thresholds (`MIN_PARALLEL_GRID` PEs in the
//! grid, `MIN_PARALLEL_PES` awake in a cycle): a run mixes cycles stepped on one thread with
//! cycles whose ranges are shared with helpers, and the logged trace of one parallel cycle is
//! mixed in by the next (or before a one-thread cycle, or at the run's end). Every thread
//! count, thresholds, windows on and off, gives the one-thread run: report, hash, statistics,
//! events and `y`.

use npusim_cerebras::Arch;
use npusim_cerebras::sched::parallel::{MIN_PARALLEL_GRID, MIN_PARALLEL_PES};
use npusim_examples::cerebras::programs::e11_gemv_scaled::{
    Size, build_sized, expected_y, results,
};

#[test]
fn runs_mixing_one_thread_and_parallel_cycles_are_those_of_one_thread()
-> Result<(), Box<dyn std::error::Error>> {
    let size = Size {
        width: 20,
        height: 16,
        m_per_pe: 4,
        n_per_pe: 3,
    };
    assert!(size.pes() as usize >= MIN_PARALLEL_GRID);
    for arch in [Arch::Wse2, Arch::Wse3] {
        let mut one = build_sized(arch, size)?;
        one.record_events(true);
        let want = one.run(size.cycle_limit())?;
        let mut parallel_cycles = 0;
        for threads in [2, 3, 5] {
            for min_pes in [None, Some(MIN_PARALLEL_PES * 3), Some(1)] {
                for (windows, events) in [(true, false), (false, false), (true, true)] {
                    let what = format!(
                        "{arch}, {threads} threads, parallel from {min_pes:?} PEs, windows {windows}, events {events}"
                    );
                    let mut sim = build_sized(arch, size)?;
                    sim.set_threads(threads)?;
                    sim.set_windows(windows);
                    sim.record_events(events);
                    sim.set_scale_profile(true);
                    if let Some(min) = min_pes {
                        // the grid's threshold too: keep it at the default
                        sim.set_min_parallel_pes(min);
                    }
                    let got = sim.run(size.cycle_limit())?;
                    assert_eq!(got, want, "{what}");
                    if events {
                        assert_eq!(sim.events(), one.events(), "{what}");
                    }
                    let (y, _) = results(&sim, size)?;
                    assert_eq!(y, expected_y(size), "{what}");
                    let p = sim.scale_profile().ok_or("no profile")?;
                    if min_pes.is_none() {
                        parallel_cycles = p.parallel_cycles;
                        // some cycles on one thread, some parallel
                        assert!(p.parallel_cycles > 0, "{what}: {p:?}");
                        assert!(p.parallel_cycles < p.cycles, "{what}: {p:?}");
                    }
                }
            }
        }
        assert!(parallel_cycles > 0);
    }
    Ok(())
}
