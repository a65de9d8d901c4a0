//! The whole-pipeline schedule (`docs/furiosa-engines.md` §10): the recurrence on the rows of
//! §10.4 that need no engine of their own (W1's switch, M1's sub context; the other rows are
//! checked on the real kernels in `dm_kernels`, `fetch_cast` and `reduce_kernels`), the
//! contexts, the text report, the Chrome trace golden, and the unchanged totals of the shipped
//! pipeline files.

// The invocations' DM byte ranges are lists of ranges, one per tensor.
#![allow(clippy::single_range_in_vec_init)]

use npusim_furiosa::DType;
use npusim_furiosa::mapping::Axes;
use npusim_furiosa::pipeline::{Pipeline, StageSpec, total_estimate};
use npusim_furiosa::schedule::{Context, Engine, EngineRecord, InvocationSchedule, Schedule};
use serde_json::json;

use crate::dm_kernels::timings;

fn rec(engine: Engine, units: u64, per_unit: u64) -> EngineRecord {
    EngineRecord::new(engine, units, per_unit)
}

/// §10.4 W1: fetch 2, switch 8 (4 × 2 × 1), collect 2, commit 2: the switch is the
/// bottleneck, collect and commit stall 6, total 8.
#[test]
fn w1_switch_bound() {
    let (rows, total) = timings(&[
        rec(Engine::Fetch, 2, 1),
        rec(Engine::Switch, 2, 4),
        rec(Engine::Collect, 2, 1),
        rec(Engine::Commit, 2, 1),
    ]);
    assert_eq!(total, 8);
    assert_eq!(rows[1], (8, 0, 0, 8, 0));
    assert_eq!(rows[2], (2, 0, 0, 8, 6));
    assert_eq!(rows[3], (2, 0, 0, 8, 6));
    let w1 = InvocationSchedule::new(
        Context::Main,
        &[
            rec(Engine::Fetch, 2, 1),
            rec(Engine::Switch, 2, 4),
            rec(Engine::Collect, 2, 1),
        ],
    );
    assert_eq!(w1.bottleneck(), Some(Engine::Switch));
    // K0's four engines all stream 4 cycles: none holds the others back.
    let k0 = InvocationSchedule::new(
        Context::Main,
        &[rec(Engine::Fetch, 4, 1), rec(Engine::Collect, 4, 1)],
    );
    assert_eq!(k0.bottleneck(), None);
}

/// M1's two invocations: K4's segment 0 on main (1024 each), segment 1 on sub (8-byte reads
/// and writes: 4 per 32-byte packet, 4096 cycles).
fn m1() -> (InvocationSchedule, InvocationSchedule) {
    let access = |r: EngineRecord, n| EngineRecord {
        accesses_per_packet: n,
        ..r
    };
    let main = InvocationSchedule::new(
        Context::Main,
        &[
            access(rec(Engine::Fetch, 1024, 1), 1),
            rec(Engine::Collect, 1024, 1),
            access(rec(Engine::Commit, 1024, 1), 1),
        ],
    )
    .with_ranges(vec![0..32_768], vec![262_144..294_912]);
    let sub = InvocationSchedule::new(
        Context::Sub,
        &[
            access(rec(Engine::Fetch, 1024, 4), 4),
            rec(Engine::Collect, 1024, 1),
            access(rec(Engine::Commit, 1024, 4), 4),
        ],
    )
    .with_ranges(vec![32_768..65_536], vec![294_912..327_680]);
    (main, sub)
}

/// §10.4 M1: disjoint DM ranges and no Vector Engine, so the contexts overlap: makespan 4096.
#[test]
fn m1_contexts_overlap() {
    let (main, sub) = m1();
    assert_eq!((main.total, sub.total), (1024, 4096));
    let mut s = Schedule::new();
    assert_eq!(s.push(main), 0);
    assert_eq!(s.push(sub), 0);
    assert_eq!(s.makespan, 4096);
}

/// [SCH]: the other context waits for an invocation that writes bytes it touches, or that
/// shares the Vector Engine; its own context always runs in order.
#[test]
fn contexts_wait_for_shared_dm_and_the_vector_engine() {
    let (main, sub) = m1();
    let mut s = Schedule::new();
    s.push(main.clone());
    let reads_main_output = sub.clone().with_ranges(vec![262_144..262_176], vec![]);
    assert_eq!(s.push(reads_main_output), 1024, "RAW on main's output");
    let mut s = Schedule::new();
    s.push(main.clone());
    assert_eq!(s.push(main.clone()), 1024, "same context in order");
    let ve =
        |c| InvocationSchedule::new(c, &[rec(Engine::Vector, 16, 1), rec(Engine::Cast, 16, 1)]);
    let mut s = Schedule::new();
    s.push(ve(Context::Main));
    assert_eq!(s.push(ve(Context::Sub)), 16, "the Vector Engine is shared");
    assert_eq!(
        s.push(sub),
        32,
        "the sub context runs its invocations in order"
    );
}

/// The text of §10.3 for K3, P = 72 (fetch-bound, collect and commit stall 12).
#[test]
fn report_text() {
    let mut s = Schedule::new();
    s.push(InvocationSchedule::new(
        Context::Main,
        &[
            rec(Engine::Fetch, 6, 3),
            rec(Engine::Collect, 6, 1),
            rec(Engine::Commit, 6, 1),
        ],
    ));
    let want = "\
invocation 1 (main): fetch -> collect -> commit; starts at cycle 0, total 18 cycles, bottleneck fetch
engine   |   units | cycles/unit |    busy |  fill |   start |  finish |   stall
fetch    |       6 |           3 |      18 |     0 |       0 |      18 |       0
collect  |       6 |           1 |       6 |     0 |       0 |      18 |      12
commit   |       6 |           1 |       6 |     0 |       0 |      18 |      12
makespan 18 cycles per slice (model furiosa-rngd-v2; engines stream concurrently, FIFOs deep enough that no engine is held back)";
    assert_eq!(s.to_string(), want);
    assert_eq!(
        s.invocations[0].invocation.summary(),
        "fetch 18, collect 6 (stall 12), commit 6 (stall 12): 18 cycles"
    );
}

/// The Chrome trace of M1, written out by hand from §10.3's rules.
#[test]
fn chrome_trace_golden() {
    let (main, sub) = m1();
    let mut s = Schedule::new();
    s.push(main);
    s.push(sub);
    let args = |units, per, busy, stall, acc| {
        json!({"units": units, "cycles_per_unit": per, "busy": busy, "fill": 0, "stall": stall,
               "blocking": 1, "accesses_per_packet": acc, "bank_run": 0})
    };
    let x = |name: &str, inv, pid, tid, dur, a| {
        json!({"name": name, "cat": format!("invocation {inv}"), "ph": "X", "pid": pid,
               "tid": tid, "ts": 0, "dur": dur, "args": a})
    };
    let thread = |pid, tid, name: &str| json!({"name": "thread_name", "ph": "M", "pid": pid, "tid": tid, "args": {"name": name}});
    let golden = json!({
        "traceEvents": [
            {"name": "process_name", "ph": "M", "pid": 0, "tid": 0, "args": {"name": "main"}},
            {"name": "process_name", "ph": "M", "pid": 1, "tid": 0, "args": {"name": "sub"}},
            thread(0, 2, "fetch"),
            thread(0, 4, "collect"),
            thread(0, 7, "commit"),
            thread(1, 2, "fetch"),
            thread(1, 4, "collect"),
            thread(1, 7, "commit"),
            x("fetch", 1, 0, 2, 1024, args(1024, 1, 1024, 0, 1)),
            x("collect", 1, 0, 4, 1024, args(1024, 1, 1024, 0, 0)),
            x("commit", 1, 0, 7, 1024, args(1024, 1, 1024, 0, 1)),
            x("fetch", 2, 1, 2, 4096, args(1024, 4, 4096, 0, 4)),
            x("collect", 2, 1, 4, 4096, args(1024, 1, 1024, 3072, 0)),
            x("commit", 2, 1, 7, 4096, args(1024, 4, 4096, 0, 4)),
        ],
        "displayTimeUnit": "ns",
        "otherData": {
            "model": "furiosa-rngd-v2",
            "time_unit": "1 us in the viewer = 1 cycle",
            "makespan": 4096,
        },
    });
    assert_eq!(s.chrome_trace(), golden);
    let text = s.chrome_trace_json();
    let mut want = serde_json::to_string_pretty(&golden).expect("json");
    want.push('\n');
    assert_eq!(text, want, "byte for byte");
    assert_eq!(
        text,
        s.clone().chrome_trace_json(),
        "the same text every time"
    );
}

/// Every shipped pipeline file: the schedule's total is the estimate's total it replaces.
#[test]
fn shipped_pipeline_totals_are_unchanged() {
    for (name, text) in crate::pipeline_file::SHIPPED {
        let p = Pipeline::parse(text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let n = p.input_positions().expect("positions");
        let (_, reports) = p.run(vec![0; n]).unwrap_or_else(|e| panic!("{name}: {e}"));
        let schedule = p.schedule(&reports).expect("schedule");
        assert_eq!(schedule.total, total_estimate(&reports).total(), "{name}");
    }
}

/// `inter_slice_dummy.toml` with T = 16 and one flit every 4 cycles upstream: 64 cycles of
/// input, then the ring tail 3: 67 (§10.2).
#[test]
fn inter_slice_dummy_at_t16_is_67() {
    let p = Pipeline {
        axes: Axes::parse("R=4, A=512, T=16").expect("axes"),
        dtype: DType::I32,
        dims: ["1", "1 # 2", "A / 8, R", "T", "A % 8"].map(String::from),
        stages: vec![
            StageSpec::VectorInit,
            StageSpec::InterSliceReduce {
                op: "AddSat".into(),
                out_slice: "A / 8, 1 # 4".into(),
                out_time: "T".into(),
            },
            StageSpec::VectorFinal,
        ],
        upstream_cycles_per_flit: 4,
    };
    let (_, reports) = p.run(vec![1; 2 * 256 * 16 * 8]).expect("run");
    let s = p.schedule(&reports).expect("schedule");
    assert_eq!(s.total, 67);
    let vector = s.engines[1];
    assert_eq!(
        (vector.busy, vector.record.fill, vector.finish, vector.stall),
        (16, 3, 67, 48)
    );
}
