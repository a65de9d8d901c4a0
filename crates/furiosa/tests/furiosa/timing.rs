//! The cycle model: the inter-slice ring tail grows with the reduction ratio and hides behind
//! a slower upstream; estimates never touch the data.

use npusim_furiosa::mapping::Axes;
use npusim_furiosa::pipeline::{Pipeline, StageReport, StageSpec, total_estimate};
use npusim_furiosa::timing::{
    ALU_LATENCY, MODEL, RING_TAIL, SLOWEST_STREAM, estimate_cast, estimate_pipeline, first_output,
};
use npusim_furiosa::{DType, InterSliceReduceOpI32, Mapping, StreamTensor, VectorTensor};

fn mp(axes: &Axes, text: &str) -> Mapping {
    Mapping::parse(text, axes).unwrap_or_else(|e| panic!("{e}"))
}

/// `Slice = m![Q, R]` over 256 slices (R = r), `Time = m![T]` (T = 32), reduced over `r`.
fn reduced(r: usize) -> VectorTensor {
    let axes = Axes::parse(&format!("Q={},R={r},T=32,P=8", 256 / r)).expect("axes");
    let dims = [
        mp(&axes, "1"),
        mp(&axes, "1"),
        mp(&axes, "Q, R"),
        mp(&axes, "T"),
        mp(&axes, "P"),
    ];
    let data = vec![1; 256 * 32 * 8];
    let t = StreamTensor::collect_i32(dims, &data).expect("input");
    t.vector_init()
        .and_then(|t| {
            t.vector_inter_slice_reduce(
                &mp(&axes, &format!("Q, 1 # {r}")),
                &mp(&axes, "T"),
                InterSliceReduceOpI32::Add,
            )
        })
        .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn ring_tail_grows_with_the_reduction_ratio() {
    let mut last = 0;
    for r in [2, 4, 16, 64, 256] {
        let est = reduced(r).estimate(1);
        assert_eq!(est.model(), MODEL);
        let tail = est
            .stages()
            .iter()
            .find(|s| s.name == "ring tail")
            .expect("tail")
            .cycles;
        assert_eq!(tail, r as u64 - 1, "r = {r}");
        assert_eq!(est.total(), 32 + r as u64 - 1);
        assert!(tail > last);
        last = tail;
    }
}

#[test]
fn slow_upstream_hides_the_per_flit_cost_but_not_the_tail() {
    // Seed 003: "Total time: input streaming time + that ring-sized tail"; a slow upstream
    // hides the inter-slice cost only partly. 32 flits at one per 2 cycles stream in 64
    // cycles, then the 15-hop tail of r = 16.
    let t = reduced(16);
    let slow = t.estimate(2);
    assert!(slow.total() >= 64 + 15, "{slow}");
    assert_eq!(slow.total(), 64 + 15);
    assert!(
        slow.stages()
            .iter()
            .any(|s| s.name == "ring tail" && s.cycles == 15)
    );
    // Upstream at one flit per cycle: the same tail after the VE stream.
    assert_eq!(t.estimate(1).total(), 32 + 15);
    // The data does not depend on the estimate.
    let before = t.tensor().codes().clone();
    let _ = t.estimate(7);
    assert_eq!(t.tensor().codes(), &before);
    assert_eq!(before.get(0), Some(16), "16 ones summed");
}

/// Seed 003's dummy replacement (`inter_slice_dummy.toml`: R = 4, AddSat) with `Time = m![T]`,
/// upstream one flit every `upstream` cycles, optionally followed by a Cast Engine to i8.
fn dummy_pipeline(t: usize, upstream: u64, cast: bool) -> Pipeline {
    let mut stages = vec![
        StageSpec::VectorInit,
        StageSpec::InterSliceReduce {
            op: "AddSat".into(),
            out_slice: "A / 8, 1 # 4".into(),
            out_time: "T".into(),
        },
        StageSpec::VectorFinal,
    ];
    if cast {
        stages.push(StageSpec::Cast {
            dtype: DType::I8,
            out_packet: "A % 8 # 32".into(),
        });
    }
    Pipeline {
        axes: Axes::parse(&format!("R=4, A=512, T={t}")).expect("axes"),
        dtype: DType::I32,
        dims: ["1", "1 # 2", "A / 8, R", "T", "A % 8"].map(String::from),
        stages,
        upstream_cycles_per_flit: upstream,
    }
}

/// Runs `p` on ones (`Time.SIZE` = `t`); returns its total and its reports.
fn run_total(p: &Pipeline, t: usize) -> (u64, Vec<StageReport>) {
    let (_, reports) = p
        .run(vec![1; 2 * 256 * t * 8])
        .unwrap_or_else(|e| panic!("{e}"));
    (total_estimate(&reports).total(), reports)
}

#[test]
fn the_tail_starts_after_the_later_of_upstream_and_the_ve_stream() {
    // T = 16 flits, one every 4 cycles: the stream ends at 64, the r = 4 tail adds 3.
    let (total, reports) = run_total(&dummy_pipeline(16, 4, false), 16);
    assert!(total >= 16 * 4 + 3, "total {total}");
    assert_eq!(total, 67);
    let ve = reports[2].estimate.as_ref().expect("vector_final estimate");
    assert_eq!(ve.total(), 67, "{ve}");
    // T = 1: 4 cycles of upstream, then the tail.
    let (total, _) = run_total(&dummy_pipeline(1, 4, false), 1);
    assert!(total >= 4 + 3, "total {total}");
    assert_eq!(total, 7);
}

#[test]
fn first_output_is_about_one_ring_traversal() {
    let (_, reports) = run_total(&dummy_pipeline(16, 1, false), 16);
    // The first flit enters the ring after one cycle, then r − 1 = 3 hops.
    assert_eq!(reports[2].first_output, Some(1 + 3));
    let (_, reports) = run_total(&dummy_pipeline(16, 4, false), 16);
    assert_eq!(reports[2].first_output, Some(4 + 3));
    // r grows: the first output comes later.
    assert_eq!(first_output(reduced(256).trace(), 1), Some(1 + 255));
    assert_eq!(reduced(2).first_output(1), Some(1 + 1));
}

#[test]
fn the_cast_engine_streams_concurrently_and_is_never_the_bottleneck() {
    // Seed 000: the Cast Engine is a pass-through stage that is never the bottleneck. A
    // reduction over 64 flits (64 + 3 cycles) followed by a cast of the 64 output flits
    // takes as long as the reduction alone.
    let (ve_only, _) = run_total(&dummy_pipeline(64, 1, false), 64);
    assert_eq!(ve_only, 67);
    let (with_cast, reports) = run_total(&dummy_pipeline(64, 1, true), 64);
    assert_eq!(with_cast, ve_only, "the cast is not added in series");
    let cast = reports[3].estimate.as_ref().expect("cast estimate");
    assert_eq!(cast.total(), 64);
    // The total says how it is made: slowest stream + ring tail + latencies.
    let total = total_estimate(&reports);
    let names: Vec<&str> = total.stages().iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, [SLOWEST_STREAM, RING_TAIL, ALU_LATENCY]);
    assert_eq!(total.stages()[0].cycles, 64);
    assert_eq!(total.stages()[1].cycles, 3);
    // A cast alone is its stream.
    assert_eq!(estimate_pipeline([&estimate_cast(9)]).total(), 9);
}

#[test]
fn cast_is_one_flit_per_cycle() {
    assert_eq!(estimate_cast(37).total(), 37);
}
