//! Every shipped program (the one list `npusim_examples::cerebras::programs::PROGRAMS` that the CLI and
//! the tour use) gives its expected output on both architectures, and runs deterministically:
//! two runs give the same report (cycles, statistics, trace hash) and the same event trace.

use npusim_cerebras::Arch;
use npusim_examples::cerebras::programs::{PROGRAMS, Values};

type Res = Result<(), Box<dyn std::error::Error>>;

#[test]
fn every_program_gives_its_expected_output_on_both_architectures() -> Res {
    for p in PROGRAMS {
        for arch in [Arch::Wse2, Arch::Wse3] {
            let run = p.run(arch, false)?;
            assert!(!run.expected.is_empty(), "{}", p.name);
            assert!(
                run.mismatches().is_empty(),
                "{} on {arch}: {:?}",
                p.name,
                run.mismatches()
            );
            assert!(run.report.cycles > 0 && run.report.cycles < p.cycle_limit);
        }
    }
    Ok(())
}

#[test]
fn a_wrong_value_is_a_mismatch() -> Res {
    let p = PROGRAMS[0];
    let mut run = p.run(Arch::Wse2, false)?;
    if let Some(Values::F32(v)) = run.got.first_mut().map(|o| &mut o.values) {
        v[0] = -v[0];
    }
    assert_eq!(run.mismatches().len(), 1);
    run.got.clear();
    assert_eq!(run.mismatches().len(), run.expected.len());
    Ok(())
}

/// FNV-1a over the rendered event lines: the trace a user sees.
fn events_hash(lines: &[String]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in lines.iter().flat_map(|l| l.bytes().chain([b'\n'])) {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

#[test]
fn two_runs_of_every_program_give_the_same_trace_hash() -> Res {
    for p in PROGRAMS {
        for arch in [Arch::Wse2, Arch::Wse3] {
            let runs = [p.run(arch, true)?, p.run(arch, true)?];
            let [a, b] = &runs;
            assert_eq!(a.report, b.report, "{} on {arch}", p.name);
            assert_ne!(a.report.trace_hash, 0);
            let lines = |r: &npusim_examples::cerebras::programs::ProgramRun| -> Vec<String> {
                r.sim.events().iter().map(ToString::to_string).collect()
            };
            assert!(!a.sim.events().is_empty(), "{}", p.name);
            assert_eq!(events_hash(&lines(a)), events_hash(&lines(b)), "{}", p.name);
            assert_eq!(a.sim.chrome_trace(), b.sim.chrome_trace());
            // recording events does not change what is hashed
            let quiet = p.run(arch, false)?;
            assert_eq!(quiet.report.trace_hash, a.report.trace_hash, "{}", p.name);
        }
    }
    Ok(())
}

#[test]
fn every_program_also_obeys_the_seed_wording_of_queue_reuse() -> Res {
    use npusim_cerebras::sched::QueueReusePolicy;
    for p in PROGRAMS {
        for arch in [Arch::Wse2, Arch::Wse3] {
            let mut sim = (p.build)(arch)?;
            sim.set_queue_reuse_policy(QueueReusePolicy::Seed);
            let report = sim.run(p.cycle_limit)?;
            let plain = p.run(arch, false)?;
            assert_eq!(report, plain.report, "{} on {arch}", p.name);
        }
    }
    Ok(())
}

/// The one-PE programs of part 1 (E1, E10) in the list give the numbers spec §13 documents.
#[test]
fn the_one_pe_programs_give_the_documented_numbers() -> Res {
    use npusim_examples::cerebras::programs::find;
    let e1 = find("E1")?.run(Arch::Wse2, false)?;
    assert_eq!(e1.got[0].values, Values::F32(vec![17.0, 53.0, 89.0, 125.0]));
    let e10 = find("topic-10-map-builtin")?.run(Arch::Wse3, false)?;
    let Values::F32(a) = &e10.got[0].values else {
        return Err("A is f32".into());
    };
    for (k, v) in a.iter().enumerate() {
        let want = if k % 6 == 0 { 6.480_740_5_f32 } else { 42.0 };
        assert_eq!(v.to_bits(), want.to_bits(), "A element {k}");
    }
    assert_eq!(e10.got[1].values, Values::I32(vec![150]));
    Ok(())
}

/// `@map` counts like any DSD operation (spec §4.6, decision: one element per cycle, as
/// `cerebras-simd-v1` costs it): E10's two maps of 5 elements report 10 elements and keep the
/// main thread busy one cycle per element (before, each ran as one opaque Rust-code cycle
/// and the statistics said 0 elements, 3 cycles).
#[test]
fn map_counts_its_elements_and_cycles() -> Res {
    use npusim_examples::cerebras::programs::find;
    for arch in [Arch::Wse2, Arch::Wse3] {
        let run = find("E10")?.run(arch, true)?;
        assert!(run.mismatches().is_empty(), "{:?}", run.mismatches());
        let pe = &run.report.pes[0];
        assert_eq!(pe.elements, 10, "{arch}");
        // one cycle to start the task, then one per element of each map
        assert_eq!(pe.busy_cycles, 1 + 5 + 5, "{arch}");
        assert_eq!(run.report.cycles, 11, "{arch}");
        let ends: Vec<&str> = run
            .sim
            .events()
            .iter()
            .filter(|e| e.text.starts_with("@map"))
            .map(|e| e.text.as_str())
            .collect();
        assert_eq!(ends.len(), 2, "{ends:?}");
        assert!(ends.iter().all(|t| t.ends_with("(5 elements)")), "{ends:?}");
    }
    Ok(())
}

/// Spec §13 E2 `gemv-05-multiple-pes` (the tutorial's `M:4,N:6,width:4`): the host reads
/// `np.tile(A.reshape(M,N) @ x + b, width)`, i.e. `[17, 53, 89, 125]` from each of 4 PEs.
#[test]
fn gemv_05_multiple_pes_gives_e1_on_each_of_4_pes() -> Res {
    use npusim_examples::cerebras::programs::find;
    for arch in [Arch::Wse2, Arch::Wse3] {
        let run = find("gemv-05-multiple-pes")?.run(arch, false)?;
        let want: Vec<f32> = (0..4).flat_map(|_| [17.0, 53.0, 89.0, 125.0]).collect();
        assert_eq!(run.got[0].values, Values::F32(want), "{arch}");
        assert_eq!(run.report.pes.len(), 4);
        // no communication: every PE does the same work
        for pe in &run.report.pes {
            assert_eq!(pe.elements, run.report.pes[0].elements, "{arch}");
            assert_eq!(pe.tasks_started, 1, "{arch}");
        }
    }
    assert_eq!(find("E2")?.name, "gemv-05-multiple-pes");
    Ok(())
}
