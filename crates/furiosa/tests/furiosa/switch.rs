//! The Switch Engine (`docs/furiosa-engines.md` §5.3): W1 from DM to DM, W2's slice
//! permutation, W3's shape goldens with the cycle figures of §5.1 and the refusals, W4's
//! broadcast values. Expected slices, shapes and cycles are the document's hand derivations.

use npusim_furiosa::dm::SliceId;
use npusim_furiosa::engine::fetch::begin;
use npusim_furiosa::engine::switch::{SwitchConfig, SwitchError, plan_switch, switch_cycles};
use npusim_furiosa::mapping::{Axes, Mapping};
use npusim_furiosa::schedule::{Engine, EngineRecord};
use npusim_furiosa::{DType, Position, StreamTensor};

use crate::fetch::Setup;

fn mp(ax: &Axes, s: &str) -> Mapping {
    Mapping::parse(s, ax).unwrap_or_else(|e| panic!("{s}: {e}"))
}

/// W1: `x[s, t, p] = 16s + 8t + p` in slices S, switched by Transpose {2, 2} and committed into
/// `Slice = m![S % 2, S / 2]` at 16: output slice j holds input slice 2·(j % 2) + j / 2.
#[test]
fn w1_dm_switch_dm_permutation() {
    let mut s = Setup::new("S=4, T=2, P=8");
    let x = npusim_furiosa::dm::DmTensor::from_addr(
        &s.dm,
        DType::I8,
        &s.m("1"),
        &s.m("1"),
        &s.m("S"),
        &s.m("T, P"),
        0,
    )
    .expect("x");
    let codes: Vec<u64> = (0..64).collect();
    x.write_logical(&mut s.dm, &["S", "T", "P"], &codes)
        .expect("load");
    let (t, p) = (s.m("T"), s.m("P"));
    let b = begin(&s.dm, &x.view());
    let fp = b.plan(&t, &p).expect("plan");
    assert_eq!(fp.cycles, 2);
    let config = SwitchConfig::Transpose {
        slice1: 2,
        slice0: 2,
    };
    let out_slice = s.m("S % 2, S / 2");
    let f = b.fetch(&t, &p).expect("fetch");
    let sp = f.switch_plan(&out_slice, &t, config).expect("switch plan");
    assert_eq!((sp.ring_size, sp.cycles), (4, 8));
    let sw = f.switch(&out_slice, &t, config).expect("switch");
    assert_eq!(sw.position(), Position::Switch);
    let c = sw.collect(&t, &s.m("P # 32")).expect("collect");
    let out = s.m("T, P");
    let (_, plan) = c
        .commit_trim(&p)
        .expect("trim")
        .commit_at(&mut s.dm, &out, 16)
        .expect("commit");
    assert_eq!(plan.cycles, 2);
    for j in 0..4 {
        let src = 2 * (j % 2) + j / 2;
        let id = SliceId {
            chip: 0,
            cluster: 0,
            slice: j,
        };
        let got = s.dm.read_bytes(id, 16, 16).expect("read");
        let want: Vec<u8> = (0..16).map(|i| (16 * src + i) as u8).collect();
        assert_eq!(got, want, "slice {j} holds input slice {src}");
    }
    // §10.4 W1: fetch 2, switch 8, collect 2, commit 2: total 8.
    let (_, total) = crate::dm_kernels::timings(&[
        EngineRecord::fetch(&fp, 0),
        EngineRecord::new(
            Engine::Switch,
            sp.time_steps as u64,
            (sp.ring_size * sp.flits_per_packet) as u64,
        ),
        EngineRecord::collect(2),
        EngineRecord::commit(&plan, 0),
    ]);
    assert_eq!(total, 8);
}

/// W2's permutation: OutSlice `A / 64, A % 2, A / 2 % 32` (Transpose {32, 2}): output slice j
/// holds input slice a = 64·(j / 64) + 2·(j % 32) + (j / 32) % 2.
#[test]
fn w2_transpose_slice_permutation() {
    let ax = Axes::parse("A=256, C=8").expect("axes");
    let dims = [
        mp(&ax, "1"),
        mp(&ax, "1"),
        mp(&ax, "A"),
        mp(&ax, "1"),
        mp(&ax, "C"),
    ];
    let codes: Vec<u64> = (0..256 * 8).map(|i| (i / 8) as u64).collect();
    let t = StreamTensor::from_dims(DType::I8, Position::Fetch, dims, codes).expect("stream");
    let out = t
        .switch(
            &mp(&ax, "A / 64, A % 2, A / 2 % 32"),
            &mp(&ax, "1"),
            SwitchConfig::Transpose {
                slice1: 32,
                slice0: 2,
            },
        )
        .expect("switch");
    let codes = out.codes().to_u64();
    for (j, a) in [(1usize, 2u64), (32, 1), (33, 3), (255, 255), (64, 64)] {
        assert_eq!(codes[j * 8], a, "slice {j}");
    }
}

/// W3 and §5.1: each configuration's structure (expected OutSlice/OutTime) and the book's
/// cycle figures.
#[test]
fn w3_shapes_and_cycle_figures() {
    let ax = Axes::parse("A=256, B=64, C=63, X=2, Y=2, Z=8").expect("axes");
    let m = |s: &str| mp(&ax, s);
    let plan = |time: &str, packet: usize, dtype, out_slice: &str, out_time: &str, config| {
        plan_switch(
            &m("A"),
            &m(time),
            packet,
            dtype,
            &m(out_slice),
            &m(out_time),
            config,
        )
    };
    let b01 = plan(
        "B",
        64,
        DType::F32,
        "A / 4, X, Y",
        "B / 4, A / 2 % 2, B % 4, A % 2",
        SwitchConfig::Broadcast01 {
            slice1: 2,
            slice0: 2,
            time0: 4,
        },
    )
    .expect("Broadcast01");
    assert_eq!(b01.cycles, 2048);
    let ax4 = Axes::parse("A=256, B=64, C=63, X=4").expect("axes");
    let b1 = plan_switch(
        &mp(&ax4, "A"),
        &mp(&ax4, "B"),
        64,
        DType::I8,
        &mp(&ax4, "A / 32, X, A % 8"),
        &mp(&ax4, "B, A / 8 % 4"),
        SwitchConfig::Broadcast1 {
            slice1: 4,
            slice0: 8,
        },
    )
    .expect("Broadcast1");
    assert_eq!(b1.cycles, 4096);
    let tr = plan(
        "B",
        64,
        DType::I8,
        "A / 64, A % 2, A / 2 % 32",
        "B",
        SwitchConfig::Transpose {
            slice1: 32,
            slice0: 2,
        },
    )
    .expect("Transpose");
    assert_eq!(tr.cycles, 8192);
    let ax8 = Axes::parse("A=256, B=8").expect("axes");
    let it = plan_switch(
        &mp(&ax8, "A"),
        &mp(&ax8, "B"),
        32,
        DType::I8,
        &mp(&ax8, "A / 32, B / 2 % 2, A % 16"),
        &mp(&ax8, "B / 4, B % 2, A / 16 % 2"),
        SwitchConfig::InterTranspose {
            slice1: 2,
            slice0: 16,
            time0: 2,
        },
    )
    .expect("InterTranspose");
    assert_eq!(it.cycles, 256);
    let ax16 = Axes::parse("A=256, B=16, Y=8").expect("axes");
    let tb = plan_switch(
        &mp(&ax16, "A"),
        &mp(&ax16, "B"),
        32,
        DType::I8,
        &mp(&ax16, "A / 64, Y, A / 8 % 8"),
        &mp(&ax16, "B, A % 8"),
        SwitchConfig::TransposedBroadcast1 {
            slice1: 8,
            slice0: 8,
        },
    )
    .expect("TransposedBroadcast1");
    assert_eq!(tb.cycles, 1024);
    // CustomBroadcast's figures: 256 × 8 × 8 flits (64 f32), 32 × 8 × 8, and the partial
    // extraction 4 × 8 (input time steps) × 1 = 32 where the book multiplies by the output's 24
    // and prints 96.
    assert_eq!(switch_cycles(256, 8, 64 * 4), 16384);
    assert_eq!(switch_cycles(32, 8, 64 * 4), 2048);
    assert_eq!(switch_cycles(4, 8, 8 * 4), 32);
    let _ = m("Z");
}

#[test]
fn w3_refusals() {
    let ax = Axes::parse("A=256, B=64, X=4").expect("axes");
    let m = |s: &str| mp(&ax, s);
    let b1 = SwitchConfig::Broadcast1 {
        slice1: 4,
        slice0: 8,
    };
    let e = plan_switch(
        &m("A"),
        &m("B"),
        64,
        DType::I8,
        &m("A / 32, B / 16, A % 8"),
        &m("B, A / 8 % 4"),
        b1,
    )
    .unwrap_err();
    assert!(matches!(e, SwitchError::BroadcastNotNew { .. }), "{e}");
    assert!(
        e.to_string().contains("holds `B`, an axis of the input"),
        "{e}"
    );
    let e = plan_switch(
        &m("A"),
        &m("B"),
        64,
        DType::I8,
        &m("A / 32, X # 4, A % 8"),
        &m("B, A / 8 % 4"),
        b1,
    );
    // `X # 4` with X = 4 has no padding cells; a real padded broadcast:
    let ax2 = Axes::parse("A=256, B=64, X=3").expect("axes");
    let padded = plan_switch(
        &mp(&ax2, "A"),
        &mp(&ax2, "B"),
        64,
        DType::I8,
        &mp(&ax2, "A / 32, X # 4, A % 8"),
        &mp(&ax2, "B, A / 8 % 4"),
        b1,
    )
    .unwrap_err();
    assert!(padded.to_string().contains("is padded"), "{padded}");
    assert!(e.is_ok(), "{e:?}");
    let tr = SwitchConfig::Transpose {
        slice1: 32,
        slice0: 2,
    };
    let e = plan_switch(
        &m("A"),
        &m("B"),
        64,
        DType::I8,
        &m("A / 64, A % 2, A / 2 % 32"),
        &m("B / 2"),
        tr,
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            SwitchError::Shape {
                what: "OutTime",
                ..
            }
        ),
        "{e}"
    );
    let ax128 = Axes::parse("A=128, B=8").expect("axes");
    let e = plan_switch(
        &mp(&ax128, "A"),
        &mp(&ax128, "B"),
        32,
        DType::I8,
        &mp(&ax128, "A"),
        &mp(&ax128, "B"),
        SwitchConfig::InterTranspose {
            slice1: 2,
            slice0: 16,
            time0: 2,
        },
    )
    .unwrap_err();
    assert!(
        matches!(e, SwitchError::InterTransposeSlices { size: 128, .. }),
        "{e}"
    );
    let e = plan_switch(&m("A"), &m("B"), 64, DType::I8, &m("A / 2"), &m("B"), tr).unwrap_err();
    assert!(
        matches!(
            e,
            SwitchError::SliceSize {
                expected: 256,
                got: 128,
                ..
            }
        ),
        "{e}"
    );
}

/// W4: Broadcast1 {2, 2} on Slice `S`, Time `1` → OutSlice `X, S % 2`, OutTime `S / 2`: output
/// slices 0 and 2 receive input slices 0 then 2, slices 1 and 3 receive 1 then 3; 4 cycles.
#[test]
fn w4_broadcast_values() {
    let ax = Axes::parse("S=4, X=2, T=1, P=8").expect("axes");
    let dims = [
        mp(&ax, "1"),
        mp(&ax, "1"),
        mp(&ax, "S"),
        mp(&ax, "1"),
        mp(&ax, "P"),
    ];
    let codes: Vec<u64> = (0..32).map(|i| (10 * (i / 8) + i % 8) as u64).collect();
    let t = StreamTensor::from_dims(DType::I8, Position::Fetch, dims, codes).expect("stream");
    let config = SwitchConfig::Broadcast1 {
        slice1: 2,
        slice0: 2,
    };
    let (os, ot) = (mp(&ax, "X, S % 2"), mp(&ax, "S / 2"));
    assert_eq!(t.switch_plan(&os, &ot, config).expect("plan").cycles, 4);
    let out = t.switch(&os, &ot, config).expect("switch").codes().to_u64();
    for j in 0..4 {
        for step in 0..2 {
            let src = 2 * step + j % 2;
            let at = (j * 2 + step) * 8;
            let want: Vec<u64> = (0..8).map(|p| (10 * src + p) as u64).collect();
            assert_eq!(out[at..at + 8], want[..], "slice {j} step {step}");
        }
    }
}
