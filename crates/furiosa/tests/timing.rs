//! The cycle model: the inter-slice ring tail grows with the reduction ratio and hides behind
//! a slower upstream; estimates never touch the data.

use npusim_furiosa::mapping::Axes;
use npusim_furiosa::timing::{MODEL, estimate_cast};
use npusim_furiosa::{InterSliceReduceOpI32, Mapping, StreamTensor, VectorTensor};

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
fn slow_upstream_hides_the_tail() {
    let t = reduced(16);
    // 32 flits at one per 2 cycles = 64 > 32 + 15: the tail is hidden.
    let slow = t.estimate(2);
    assert_eq!(slow.total(), 64);
    assert!(
        slow.stages()
            .iter()
            .any(|s| s.name == "ring tail" && s.cycles == 0)
    );
    // Upstream at one flit per cycle: the tail shows.
    assert_eq!(t.estimate(1).total(), 32 + 15);
    // The data does not depend on the estimate.
    let before = t.tensor().codes().to_vec();
    let _ = t.estimate(7);
    assert_eq!(t.tensor().codes(), &before[..]);
    assert_eq!(before[0], 16, "16 ones summed");
}

#[test]
fn cast_is_one_flit_per_cycle() {
    assert_eq!(estimate_cast(37).total(), 37);
}
