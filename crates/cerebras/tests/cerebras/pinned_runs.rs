//! Every shipped program's run, pinned: cycles, trace hash, a digest of the per-PE statistics
//! and a digest of the event trace, on both architectures. The simulator's speed-ups (idle PEs
//! skipped, multi-threaded stepping) must not change any of them. The numbers were recorded
//! from the cycle-by-cycle scheduler that steps every PE every cycle.

use npusim_cerebras::Arch;
use npusim_examples::cerebras::programs::{PROGRAMS, ProgramRun};

/// 64-bit FNV-1a over bytes.
fn fnv(bytes: impl IntoIterator<Item = u8>) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Digest of the per-PE statistics and the idle operations of a run.
pub fn stats_digest(run: &ProgramRun) -> u64 {
    fnv(format!("{:?} {:?}", run.report.pes, run.report.idle).into_bytes())
}

/// Digest of the recorded events as a user sees them, one line each.
pub fn events_digest(run: &ProgramRun) -> u64 {
    fnv(run
        .sim
        .events()
        .iter()
        .flat_map(|e| e.to_string().into_bytes().into_iter().chain([b'\n'])))
}

/// `(program, arch, cycles, trace hash, statistics digest, events digest)`.
const PINNED: &[(&str, &str, u64, u64, u64, u64)] = &[
    (
        "gemv-02-memory-dsds",
        "wse2",
        30,
        0xc1abd70f05188710,
        0x813aa02cd8a432a0,
        0x645d28a73600ace4,
    ),
    (
        "gemv-02-memory-dsds",
        "wse3",
        30,
        0xc1abd70f05188710,
        0x813aa02cd8a432a0,
        0x645d28a73600ace4,
    ),
    (
        "gemv-05-multiple-pes",
        "wse2",
        30,
        0xe6b497a68a81c459,
        0x0bd900342c87d4af,
        0x1c64aa11913f91b5,
    ),
    (
        "gemv-05-multiple-pes",
        "wse3",
        30,
        0xe6b497a68a81c459,
        0x0bd900342c87d4af,
        0x1c64aa11913f91b5,
    ),
    (
        "gemv-06-routes-1",
        "wse2",
        27,
        0x4d8ab57f70df71b6,
        0x8070b67cde7eabc0,
        0xb4fa18f6c2e18092,
    ),
    (
        "gemv-06-routes-1",
        "wse3",
        26,
        0xd1fb25c778598d32,
        0x0c6ec756a136bc03,
        0x5138dda490c75e9e,
    ),
    (
        "gemv-08-routes-3",
        "wse2",
        30,
        0x18cf2db43f46513c,
        0x9d663caa1957016f,
        0x19ba8f67455f6bbe,
    ),
    (
        "gemv-08-routes-3",
        "wse3",
        29,
        0x6ccf7553ca93fd28,
        0xebcb07b50cc69363,
        0x597313e668744711,
    ),
    (
        "gemv-09-streaming",
        "wse2",
        48,
        0xc899ead137ce3632,
        0xb628e3dc81074e46,
        0x1acef41673867226,
    ),
    (
        "gemv-09-streaming",
        "wse3",
        45,
        0xa58b2c1a93a2447d,
        0xce969998457a164e,
        0x1eaf6e1a38ef0eac,
    ),
    (
        "gemv-checkerboard-pattern",
        "wse2",
        79,
        0xe7af76def2434509,
        0x9a0ef408c8fd1f8c,
        0x9d69435a840c8c65,
    ),
    (
        "gemv-checkerboard-pattern",
        "wse3",
        79,
        0x51375d7351bfc34a,
        0x0a2c5866cc87b394,
        0x9388ac8a816ddc5d,
    ),
    (
        "pipeline-01-basic",
        "wse2",
        16,
        0xfdb261a3ae0261d1,
        0x565de28f355566be,
        0x08d6888023d16703,
    ),
    (
        "pipeline-01-basic",
        "wse3",
        16,
        0xfdb261a3ae0261d1,
        0x565de28f355566be,
        0x08d6888023d16703,
    ),
    (
        "pipeline-02-fifo",
        "wse2",
        97,
        0xf360589415835b17,
        0x9355f6b69756d6c9,
        0x3cef2589116e37da,
    ),
    (
        "pipeline-02-fifo",
        "wse3",
        97,
        0x1e379c687f02e6f4,
        0x812688375e79e544,
        0x3cef2589116e37da,
    ),
    (
        "topic-09-fifos",
        "wse2",
        35,
        0xf8dc5c622ccbe2fd,
        0x364b597c0bc10083,
        0x81ec441306961f4e,
    ),
    (
        "topic-09-fifos",
        "wse3",
        32,
        0x3a2a6e97de614465,
        0x39053d7d7e806b57,
        0xa003f54ad1fbeb6e,
    ),
    (
        "topic-10-map-builtin",
        "wse2",
        11,
        0x8407b03009824cbc,
        0xcb63656a182326fc,
        0x2a90c659bebfba17,
    ),
    (
        "topic-10-map-builtin",
        "wse3",
        11,
        0x8407b03009824cbc,
        0xcb63656a182326fc,
        0x2a90c659bebfba17,
    ),
    (
        "gemv-scaled",
        "wse2",
        65,
        0x8f057c404038b4a9,
        0xbbd5b4bdc9796f03,
        0xf11e45382c1ce0d9,
    ),
    (
        "gemv-scaled",
        "wse3",
        64,
        0xf17aa4baf0ac0b25,
        0xb08b99aef201180b,
        0x78d6d4d65b28f79c,
    ),
];

#[test]
fn every_program_gives_its_pinned_cycles_hashes_and_statistics()
-> Result<(), Box<dyn std::error::Error>> {
    let mut seen = Vec::new();
    for p in PROGRAMS {
        for arch in [Arch::Wse2, Arch::Wse3] {
            let run = p.run(arch, true)?;
            seen.push(format!(
                "    (\"{}\", \"{arch}\", {}, 0x{:016x}, 0x{:016x}, 0x{:016x}),",
                p.name,
                run.report.cycles,
                run.report.trace_hash,
                stats_digest(&run),
                events_digest(&run)
            ));
        }
    }
    let want: Vec<String> = PINNED
        .iter()
        .map(|(name, arch, cycles, hash, stats, events)| {
            format!("    (\"{name}\", \"{arch}\", {cycles}, 0x{hash:016x}, 0x{stats:016x}, 0x{events:016x}),")
        })
        .collect();
    assert_eq!(seen, want, "got:\n{}", seen.join("\n"));
    Ok(())
}

/// `(width, height, m_per_pe, n_per_pe, arch, cycles, trace hash, statistics digest)` of
/// larger runs of E11, where queues fill and wavelets wait on each other.
type SizedPin = (u32, u32, u32, u32, &'static str, u64, u64, u64);

const PINNED_SIZES: &[SizedPin] = &[
    (
        16,
        12,
        5,
        7,
        "wse2",
        119,
        0xbcf2337a09637331,
        0xbf53154aa4ba9e37,
    ),
    (
        16,
        12,
        5,
        7,
        "wse3",
        118,
        0xc65e1f05e6ff40b5,
        0x1386b200129f5f07,
    ),
    (
        9,
        20,
        1,
        3,
        "wse2",
        62,
        0x0bcc215d4b1c5c0f,
        0x15fdb8168a079abe,
    ),
    (
        9,
        20,
        1,
        3,
        "wse3",
        61,
        0x747100882bbe1913,
        0xecc2ba9e89f873b8,
    ),
    (
        24,
        3,
        12,
        2,
        "wse2",
        120,
        0x2c66d4612665ed6a,
        0x56feab7551ac38d1,
    ),
    (
        24,
        3,
        12,
        2,
        "wse3",
        119,
        0x5660aec3274f3292,
        0x597a6a6d14e886fb,
    ),
];

#[test]
fn larger_gemv_scaled_runs_give_their_pinned_cycles_hashes_and_statistics()
-> Result<(), Box<dyn std::error::Error>> {
    use npusim_examples::cerebras::programs::e11_gemv_scaled::{Size, build_sized};
    let sizes = [(16, 12, 5, 7), (9, 20, 1, 3), (24, 3, 12, 2)];
    let mut seen = Vec::new();
    for (width, height, m_per_pe, n_per_pe) in sizes {
        let size = Size {
            width,
            height,
            m_per_pe,
            n_per_pe,
        };
        for arch in [Arch::Wse2, Arch::Wse3] {
            let mut sim = build_sized(arch, size)?;
            let report = sim.run(size.cycle_limit())?;
            let stats = fnv(format!("{:?} {:?}", report.pes, report.idle).into_bytes());
            seen.push(format!(
                "    ({width}, {height}, {m_per_pe}, {n_per_pe}, \"{arch}\", {}, 0x{:016x}, 0x{stats:016x}),",
                report.cycles, report.trace_hash
            ));
        }
    }
    let want: Vec<String> = PINNED_SIZES
        .iter()
        .map(|(w, h, m, n, arch, cycles, hash, stats)| {
            format!(
                "    ({w}, {h}, {m}, {n}, \"{arch}\", {cycles}, 0x{hash:016x}, 0x{stats:016x}),"
            )
        })
        .collect();
    assert_eq!(seen, want, "got:\n{}", seen.join("\n"));
    Ok(())
}

/// Skipping idle PEs changes nothing: every program, stepped with every PE every cycle, gives
/// the same report (cycles, statistics with their stalls, trace hash), events and outputs.
#[test]
fn stepping_every_pe_every_cycle_gives_the_same_runs() -> Result<(), Box<dyn std::error::Error>> {
    for p in PROGRAMS {
        for arch in [Arch::Wse2, Arch::Wse3] {
            let skipping = p.run(arch, true)?;
            let mut sim = (p.build)(arch)?;
            sim.record_events(true);
            sim.set_idle_skipping(false);
            let report = sim.run(p.cycle_limit)?;
            assert_eq!(report, skipping.report, "{} on {arch}", p.name);
            assert_eq!(sim.events(), skipping.sim.events(), "{} on {arch}", p.name);
            assert_eq!((p.read)(&sim)?, skipping.got, "{} on {arch}", p.name);
        }
    }
    Ok(())
}

/// Running PE-local operations ahead of their cycles changes nothing: every program, each
/// element done in its own cycle, gives the same report, events and outputs, and so do the
/// larger E11 runs (where the blocks of `A` make long `@fmacs` operations) on 1 and 3 threads.
#[test]
fn doing_each_element_in_its_cycle_gives_the_same_runs() -> Result<(), Box<dyn std::error::Error>> {
    use npusim_examples::cerebras::programs::e11_gemv_scaled::{Size, build_sized};
    for p in PROGRAMS {
        for arch in [Arch::Wse2, Arch::Wse3] {
            let ahead = p.run(arch, true)?;
            let mut sim = (p.build)(arch)?;
            sim.record_events(true);
            sim.set_run_ahead(false);
            let report = sim.run(p.cycle_limit)?;
            assert_eq!(report, ahead.report, "{} on {arch}", p.name);
            assert_eq!(sim.events(), ahead.sim.events(), "{} on {arch}", p.name);
            assert_eq!((p.read)(&sim)?, ahead.got, "{} on {arch}", p.name);
        }
    }
    let size = Size {
        width: 6,
        height: 5,
        m_per_pe: 9,
        n_per_pe: 4,
    };
    for arch in [Arch::Wse2, Arch::Wse3] {
        for threads in [1, 3] {
            let mut runs = Vec::new();
            for ahead in [true, false] {
                let mut sim = build_sized(arch, size)?;
                sim.record_events(true);
                sim.set_threads(threads)?;
                sim.set_min_parallel_pes(1);
                sim.set_run_ahead(ahead);
                let report = sim.run(size.cycle_limit())?;
                runs.push((report, sim.events().to_vec()));
            }
            assert_eq!(runs[0], runs[1], "{size:?} on {arch}, {threads} threads");
        }
    }
    Ok(())
}

/// The trace hash, cycles, statistics, events and outputs do not depend on the thread count:
/// every program, each cycle's PEs split over 2, 3 and 5 threads (down to one PE per cycle),
/// gives its pinned run.
#[test]
fn every_program_gives_the_same_run_on_any_thread_count() -> Result<(), Box<dyn std::error::Error>>
{
    for p in PROGRAMS {
        for arch in [Arch::Wse2, Arch::Wse3] {
            let one = p.run(arch, true)?;
            for threads in [2, 3, 5] {
                let mut sim = (p.build)(arch)?;
                sim.record_events(true);
                sim.set_threads(threads)?;
                sim.set_min_parallel_pes(1);
                assert_eq!(sim.threads(), threads);
                let report = sim.run(p.cycle_limit)?;
                let what = format!("{} on {arch}, {threads} threads", p.name);
                assert_eq!(report, one.report, "{what}");
                assert_eq!(sim.events(), one.sim.events(), "{what}");
                assert_eq!((p.read)(&sim)?, one.got, "{what}");
            }
        }
    }
    Ok(())
}

/// The larger E11 runs give their pinned numbers on 1, 2, 4 and 7 threads, with the default
/// threshold for going parallel and with every cycle parallel, skipping idle PEs on or off.
#[test]
fn larger_gemv_scaled_runs_are_the_same_on_any_thread_count()
-> Result<(), Box<dyn std::error::Error>> {
    use npusim_examples::cerebras::programs::e11_gemv_scaled::{Size, build_sized, results};
    for &(width, height, m_per_pe, n_per_pe, arch, cycles, hash, stats) in PINNED_SIZES {
        let size = Size {
            width,
            height,
            m_per_pe,
            n_per_pe,
        };
        let arch = if arch == "wse2" {
            Arch::Wse2
        } else {
            Arch::Wse3
        };
        for threads in [1, 2, 4, 7] {
            for (skip, min_pes) in [
                (true, None),
                (false, None),
                (true, Some(1)),
                (false, Some(1)),
            ] {
                let mut sim = build_sized(arch, size)?;
                sim.set_threads(threads)?;
                sim.set_idle_skipping(skip);
                if let Some(min) = min_pes {
                    sim.set_min_parallel_pes(min);
                }
                let report = sim.run(size.cycle_limit())?;
                let what = format!(
                    "{size:?} on {arch}, {threads} threads, skipping {skip}, parallel from {min_pes:?} PEs"
                );
                assert_eq!(report.cycles, cycles, "{what}");
                assert_eq!(report.trace_hash, hash, "{what}");
                let digest = fnv(format!("{:?} {:?}", report.pes, report.idle).into_bytes());
                assert_eq!(digest, stats, "{what}");
                let (y, _) = results(&sim, size)?;
                assert_eq!(
                    y,
                    npusim_examples::cerebras::programs::e11_gemv_scaled::expected_y(size)
                );
            }
        }
    }
    Ok(())
}

#[test]
fn zero_threads_is_refused() -> Result<(), Box<dyn std::error::Error>> {
    let mut sim = npusim_cerebras::sched::Sim::new(Arch::Wse2, 2, 2)?;
    let err = sim.set_threads(0).err().ok_or("0 threads accepted")?;
    assert!(err.to_string().contains("0 thread"), "{err}");
    assert_eq!(sim.threads(), 1);
    Ok(())
}

/// A grid smaller than the threshold for stepping a cycle on several threads runs on the
/// calling thread (no pool is started, no thread handed the run); with the threshold down to
/// one PE the same run steps on the pool's threads, with the same report.
#[test]
fn a_grid_below_the_threshold_runs_on_the_calling_thread() -> Result<(), Box<dyn std::error::Error>>
{
    use npusim_cerebras::ids::LocalTaskId;
    use npusim_cerebras::sched::{Action, Sim};
    use std::sync::{Arc, Mutex};
    let mut reports = Vec::new();
    for min_pes in [None, Some(1)] {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let mut sim = Sim::new(Arch::Wse2, 2, 2)?;
        let task = LocalTaskId::new(10)?;
        for (x, y) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
            let seen = Arc::clone(&seen);
            let call = Action::call(move |_| {
                if let Ok(mut s) = seen.lock() {
                    s.push(std::thread::current().id());
                }
                Ok(Vec::new())
            });
            sim.bind_task(x, y, task, "note", vec![call])?;
            sim.activate(x, y, task)?;
        }
        sim.set_threads(2)?;
        if let Some(min) = min_pes {
            sim.set_min_parallel_pes(min);
        }
        reports.push(sim.run(100)?);
        let here = std::thread::current().id();
        let seen = seen.lock().map_err(|e| e.to_string())?;
        assert_eq!(seen.len(), 4);
        if min_pes.is_none() {
            assert!(seen.iter().all(|&t| t == here), "{seen:?} {here:?}");
        } else {
            assert!(seen.iter().all(|&t| t != here), "{seen:?} {here:?}");
        }
    }
    assert_eq!(reports[0], reports[1]);
    Ok(())
}
