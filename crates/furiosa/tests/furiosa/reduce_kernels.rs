//! Reductions across Slice, Time and Packet from DM to DM (`docs/furiosa-engines.md` §9.4):
//! K7 (`full_sum`: intra-slice first, then inter-slice, with its intermediate partials) and K8
//! (a per-slice reduction with padding). Expected values are the document's hand sums.

use npusim_furiosa::dm::{DmTensor, SliceId};
use npusim_furiosa::engine::fetch::begin;
use npusim_furiosa::schedule::EngineRecord;
use npusim_furiosa::{
    BranchMode, DType, InterSliceReduceOpI32, IntraSliceReduceOpI32, StreamTensor, VectorTensor,
};

use crate::fetch::Setup;

/// K7's input: `DmTensor<i32, 1, m![B], m![R / 32], m![R % 32]>` at 0, x[b, r] = r − 4096 + b.
fn k7_input(s: &mut Setup) -> DmTensor {
    let x = DmTensor::from_addr(
        &s.dm,
        DType::I32,
        &s.m("1"),
        &s.m("B"),
        &s.m("R / 32"),
        &s.m("R % 32"),
        0,
    )
    .expect("x");
    let codes: Vec<u64> = (0..2i64)
        .flat_map(|b| (0..8192i64).map(move |r| (r - 4096 + b) as i32 as u32 as u64))
        .collect();
    x.write_logical(&mut s.dm, &["B", "R"], &codes)
        .expect("load");
    x
}

/// K7 up to `vector_widen_pad`: fetch, collect, init, branch, trim, intra-slice AddSat.
fn k7_partials(s: &Setup, x: &DmTensor) -> VectorTensor {
    let (t, p) = (s.m("R % 32 / 4"), s.m("R % 4"));
    let b = begin(&s.dm, &x.view());
    let plan = b.plan(&t, &p).expect("plan");
    assert_eq!(
        (plan.sequencer.to_string(), plan.read_bytes, plan.cycles),
        ("[8:4, 4:1] : 4".into(), 16, 8)
    );
    b.fetch(&t, &p)
        .expect("fetch")
        .collect(&t, &s.m("R % 4 # 8"))
        .expect("collect")
        .vector_init()
        .and_then(|v| v.vector_intra_slice_branch(BranchMode::Unconditional))
        .and_then(|v| v.vector_narrow_trim(&p))
        .and_then(|v| {
            v.vector_intra_slice_reduce(
                "R",
                &s.m("1"),
                &s.m("1 # 4"),
                IntraSliceReduceOpI32::AddSat,
            )
        })
        .and_then(|v| v.vector_widen_pad(&s.m("1 # 8")))
        .expect("intra-slice partials")
}

/// The intermediate check: slice s of cluster 0 holds Σ_{r = 32s}^{32s + 31} (r − 4096) =
/// 1024s + 496 − 131072 in lane 0 (slice 0: −130576); cluster 1 adds 32 per slice.
#[test]
fn k7_intra_slice_partials_keep_the_slice_part_of_r() {
    let mut s = Setup::new("B=2, R=8192");
    let x = k7_input(&mut s);
    let v = k7_partials(&s, &x);
    let t = v.tensor();
    assert_eq!(
        t.mapping(npusim_furiosa::tensor::Dim::Slice).m_notation(),
        "R / 32"
    );
    assert_eq!(t.shape(), [1, 2, 256, 1, 8]);
    let ints = t.ints();
    let lane0 = |cluster: usize, slice: usize| ints[(cluster * 256 + slice) * 8];
    assert_eq!(lane0(0, 0), -130576);
    for slice in [1usize, 100, 255] {
        assert_eq!(
            lane0(0, slice),
            1024 * slice as i64 + 496 - 131072,
            "slice {slice}"
        );
        assert_eq!(lane0(1, slice), 1024 * slice as i64 + 496 - 131072 + 32);
    }
}

/// K7 to DM: cluster b holds −4096 + 8192b at bytes 128..131 of slice 0; slices 1..255 and
/// bytes 132..135 (the trimmed padding lane) are not written.
#[test]
fn k7_full_sum_dm_to_dm() {
    let mut s = Setup::new("B=2, R=8192");
    let x = k7_input(&mut s);
    let v = k7_partials(&s, &x)
        .vector_inter_slice_reduce(&s.m("1 # 256"), &s.m("1"), InterSliceReduceOpI32::AddSat)
        .expect("inter-slice");
    let vector = EngineRecord::vector(v.trace());
    let stream: StreamTensor = v
        .vector_final()
        .expect("final")
        .commit_trim(&s.m("1 # 2"))
        .expect("trim");
    let out = s.m("1 # 2");
    let (_, plan) = stream.commit_at(&mut s.dm, &out, 128).expect("commit");
    assert_eq!((plan.write_bytes, plan.cycles), (8, 1));
    // §10.4 K7: fetch 8, collect 8, vector 8 flits × 2 (Way4) = 16 busy with fill 255 + 1
    // and blocking 8; the vector finishes at max(16, 8) + 256 = 272, its first output at
    // 256 + 7 × 2 = 270, where the commit (1 packet) starts; total 272.
    assert_eq!(
        (
            vector.units,
            vector.cycles_per_unit,
            vector.fill,
            vector.blocking
        ),
        (8, 2, 256, 8)
    );
    let fp = begin(&s.dm, &x.view())
        .plan(&s.m("R % 32 / 4"), &s.m("R % 4"))
        .expect("plan");
    let (rows, total) = crate::dm_kernels::timings(&[
        EngineRecord::fetch(&fp, 0),
        EngineRecord::collect(8),
        vector,
        EngineRecord::commit(&plan, 0),
    ]);
    assert_eq!(total, 272);
    assert_eq!(rows[2], (16, 256, 0, 272, 0));
    assert_eq!(rows[3], (1, 0, 270, 272, 1));
    let word = |cluster, slice, addr| {
        let id = SliceId {
            chip: 0,
            cluster,
            slice,
        };
        let b = s.dm.read_bytes(id, addr, 4).expect("read");
        i32::from_le_bytes([b[0], b[1], b[2], b[3]])
    };
    assert_eq!(word(0, 0, 128), -4096);
    assert_eq!(word(1, 0, 128), 4096);
    let fill = i32::from_le_bytes([0xA5; 4]);
    assert_eq!(word(0, 0, 132), fill, "the padding lane is not written");
    for slice in [1, 2, 255] {
        assert_eq!(word(0, slice, 128), fill, "slice {slice}");
    }
}

/// K8 ([IR] `R = 13`, Min): x[r] = 50 − 7r. Slice 0 folds r = 0..7 → 1; slice 1 folds
/// r = 8..12 (its three other lanes overshoot R and are skipped) → −34; slices 2 and 3 hold
/// no live R and slices 4..255 are padding: none of them is written.
#[test]
fn k8_per_slice_min_with_padding() {
    let mut s = Setup::new("R=13");
    let x = DmTensor::from_addr(
        &s.dm,
        DType::I32,
        &s.m("1"),
        &s.m("1 # 2"),
        &s.m("R # 32 / 8 # 256"),
        &s.m("R # 32 % 8"),
        0,
    )
    .expect("x");
    let codes: Vec<u64> = (0..13i64)
        .map(|r| (50 - 7 * r) as i32 as u32 as u64)
        .collect();
    x.write_logical(&mut s.dm, &["R"], &codes).expect("load");
    let (t, p) = (s.m("R # 32 / 4 % 2"), s.m("R # 32 % 4"));
    let b = begin(&s.dm, &x.view());
    let plan = b.plan(&t, &p).expect("plan");
    assert_eq!(
        (plan.sequencer.to_string(), plan.cycles),
        ("[2:4, 4:1] : 4".into(), 2)
    );
    let stream = b
        .fetch(&t, &p)
        .expect("fetch")
        .collect(&t, &s.m("R # 32 % 4 # 8"))
        .expect("collect")
        .vector_init()
        .and_then(|v| v.vector_intra_slice_branch(BranchMode::Unconditional))
        .and_then(|v| v.vector_narrow_trim(&p))
        .and_then(|v| {
            v.vector_intra_slice_reduce("R", &s.m("1"), &s.m("1 # 4"), IntraSliceReduceOpI32::Min)
        })
        .and_then(|v| v.vector_widen_pad(&s.m("1 # 8")))
        .and_then(|v| v.vector_final())
        .expect("reduce")
        .commit_trim(&s.m("1 # 2"))
        .expect("trim");
    let out = s.m("1 # 2");
    stream.commit_at(&mut s.dm, &out, 64).expect("commit");
    let word = |slice, addr| {
        let id = SliceId {
            chip: 0,
            cluster: 0,
            slice,
        };
        let b = s.dm.read_bytes(id, addr, 4).expect("read");
        i32::from_le_bytes([b[0], b[1], b[2], b[3]])
    };
    assert_eq!(word(0, 64), 1);
    assert_eq!(word(1, 64), -34);
    let fill = i32::from_le_bytes([0xA5; 4]);
    for slice in [2, 3, 4, 255] {
        assert_eq!(word(slice, 64), fill, "slice {slice}");
    }
}
