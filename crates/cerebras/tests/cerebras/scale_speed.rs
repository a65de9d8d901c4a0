//! A measurement, not a check (ignored by default): E11 on 64 x 64 PEs, the CPU time of its
//! run (all threads of the process, from `/proc/self/task/*/schedstat`) at 1 and 2 threads,
//! with its cycles, trace hash and statistics digest, and the CPU time of building the program
//! and of dropping the simulation (both counted by `npusim bench`). Run it with
//! `cargo test --release -p npusim-cerebras --test cerebras scale_speed -- --ignored --nocapture`
//! (`NPUSIM_SCALE_REPEATS` runs per row, 3 by default; `NPUSIM_SCALE_BLOCKS` and
//! `NPUSIM_SCALE_THREADS` choose the rows, e.g. `16` and `1,2`; `NPUSIM_SCALE_GRID` the grid's
//! side, 64 by default; `NPUSIM_SCALE_MIN_PES` the fewest PEs a cycle steps on several threads;
//! `NPUSIM_SCALE_AHEAD=0` does each element in its cycle, `NPUSIM_SCALE_WINDOWS=0` steps no
//! window of cycles after a task start; `NPUSIM_SCALE_PROFILE=1` prints each row's split of CPU
//! time into serial and parallel parts, `Sim::set_scale_profile`, and the speed-up two quiet
//! cores would give over the same block's one-thread row). `docs/speed.md`
//! quotes it.

use npusim_cerebras::Arch;
use npusim_examples::cerebras::programs::e11_gemv_scaled::{Size, build_sized};

/// CPU nanoseconds used so far by every thread of this process (threads that ended are not
/// counted: the simulator's pool threads live as long as the simulation).
fn process_cpu_ns() -> u64 {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return 0;
    };
    tasks
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .sum()
}

#[test]
#[ignore = "a measurement: run with --ignored --nocapture"]
fn gemv_scaled_64x64_cpu_time() -> Result<(), Box<dyn std::error::Error>> {
    let repeats: usize = std::env::var("NPUSIM_SCALE_REPEATS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3);
    let list = |var: &str, default: &[u32]| -> Vec<u32> {
        std::env::var(var).map_or_else(
            |_| default.to_vec(),
            |v| v.split(',').filter_map(|x| x.trim().parse().ok()).collect(),
        )
    };
    let side = list("NPUSIM_SCALE_GRID", &[64])
        .first()
        .copied()
        .unwrap_or(64);
    let profiling = std::env::var("NPUSIM_SCALE_PROFILE").is_ok_and(|v| v == "1");
    for block in list("NPUSIM_SCALE_BLOCKS", &[16, 4, 2]) {
        // the one-thread row's run, and its build and drop, in CPU ns (the profile's
        // loop thread, which is the run's thread there)
        let mut one_thread: Option<(u64, u64)> = None;
        for threads in list("NPUSIM_SCALE_THREADS", &[1, 2]) {
            let threads = threads as usize;
            let size = Size {
                width: side,
                height: side,
                m_per_pe: block,
                n_per_pe: block,
            };
            let mut best = u64::MAX;
            let mut best_wall = f64::MAX;
            let (mut best_build, mut best_drop) = (u64::MAX, u64::MAX);
            let mut line = String::new();
            let mut best_profile: Option<npusim_cerebras::sched::ScaleProfile> = None;
            for _ in 0..repeats {
                let before_build = process_cpu_ns();
                let mut sim = build_sized(Arch::Wse2, size)?;
                best_build = best_build.min(process_cpu_ns() - before_build);
                sim.set_threads(threads)?;
                if let Some(&min) = list("NPUSIM_SCALE_MIN_PES", &[]).first() {
                    sim.set_min_parallel_pes(min as usize);
                }
                sim.set_run_ahead(std::env::var("NPUSIM_SCALE_AHEAD").map_or(true, |v| v != "0"));
                sim.set_windows(std::env::var("NPUSIM_SCALE_WINDOWS").map_or(true, |v| v != "0"));
                sim.set_scale_profile(profiling);
                let before = process_cpu_ns();
                let wall = std::time::Instant::now();
                let report = sim.run(size.cycle_limit())?;
                let wall = wall.elapsed();
                best_wall = best_wall.min(wall.as_secs_f64());
                let cpu = process_cpu_ns() - before;
                best = best.min(cpu);
                if let Some(p) = sim.scale_profile()
                    && best_profile.as_ref().is_none_or(|b| p.loop_ns < b.loop_ns)
                {
                    best_profile = Some(p.clone());
                }
                let busy: u64 = report.pes.iter().map(|p| p.busy_cycles).sum();
                let before_drop = process_cpu_ns();
                drop(sim);
                best_drop = best_drop.min(process_cpu_ns() - before_drop);
                let stats = format!("{:?} {:?}", report.pes, report.idle);
                let digest = stats.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
                    (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
                });
                line = format!(
                    "{side}x{side} {block}x{block} threads {threads}: cycles {} busy {busy} hash 0x{:016x} stats 0x{digest:016x} wall {:.3} s",
                    report.cycles,
                    report.trace_hash,
                    wall.as_secs_f64()
                );
                let pe_cycles = u64::from(side * side) * report.cycles;
                line += &format!(
                    " | best wall {best_wall:.4} s, best cpu {:.3} s = {:.2} M PE-cycles per CPU-s",
                    best as f64 / 1e9,
                    pe_cycles as f64 / (best as f64 / 1e9) / 1e6
                );
                line += &format!(
                    " | build cpu {:.3} s, drop cpu {:.3} s",
                    best_build as f64 / 1e9,
                    best_drop as f64 / 1e9
                );
            }
            println!("{line}");
            if let Some(p) = best_profile {
                let serial_rest = best_build + best_drop;
                if threads == 1 {
                    one_thread = Some((p.loop_ns, serial_rest));
                }
                println!("{}", p.report(one_thread.map(|(t1, _)| t1)));
                if let (Some((t1, rest1)), true) = (one_thread, threads > 1) {
                    let rest = (rest1 + serial_rest) / 2;
                    println!(
                        "with building and dropping ({:.2} ms, serial), as `npusim bench` times a call: {:.2}x",
                        rest as f64 / 1e6,
                        (t1 + rest) as f64 / (p.two_core_ns() + rest) as f64
                    );
                }
            }
        }
    }
    Ok(())
}
