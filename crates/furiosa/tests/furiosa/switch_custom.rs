//! `CustomBroadcast` (`docs/furiosa-engines.md` §5.1–§5.3 W5–W7): the Switch Engine page's
//! three custom examples with their ring sizes and cycles, each of its seven constraints
//! refused with the rule, the derived ring size, the data of a custom switch and its cost in a
//! kernel file's schedule. Expected slices and cycles are derived by hand from the page's text.

use npusim_furiosa::engine::switch::{SwitchConfig, SwitchError, plan_switch};
use npusim_furiosa::mapping::{Axes, Mapping};
use npusim_furiosa::pipeline::{KernelInput, PipelineKind};
use npusim_furiosa::tensor::Dim;
use npusim_furiosa::{DType, Position, StreamTensor};

fn mp(ax: &Axes, s: &str) -> Mapping {
    Mapping::parse(s, ax).unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn custom(ring_size: usize) -> SwitchConfig {
    SwitchConfig::CustomBroadcast { ring_size }
}

/// A fetched f32 stream over Chip 1, Cluster 1, `slice`, `time`, `packet` whose every cell
/// holds `1000 × slice + 10 × time + lane` (as an integer code).
fn stream(ax: &Axes, slice: &str, time: &str, packet: &str) -> StreamTensor {
    let (s, t, p) = (mp(ax, slice), mp(ax, time), mp(ax, packet));
    let (ns, nt, np) = (s.size(), t.size(), p.size());
    let codes: Vec<u64> = (0..ns * nt * np)
        .map(|i| (1000 * (i / (nt * np)) + 10 * (i / np % nt) + i % np) as u64)
        .collect();
    StreamTensor::new(
        DType::I32,
        Position::Fetch,
        mp(ax, "1"),
        mp(ax, "1"),
        s,
        t,
        p,
        codes,
    )
    .expect("stream")
}

/// W5, the page's Example 1 (arbitrary permutation): `A = 16, B = 16, C = 8, D = 8, E = 8`, f32,
/// Slice `A, B` → `B % 4, B / 4, A % 4, A / 4`, Time `C`: sources arbitrarily far apart, so the
/// derived ring size is 256; cycles 256 × 8 × 8 (64 f32 = 8 flits) = 16384. Output slice
/// `os = 64(b % 4) + 16(b / 4) + 4(a % 4) + a / 4` holds input slice `16a + b`: os 1 ← 64
/// (a = 4), os 4 ← 16 (a = 1; the page's table prints `(A, B) = (0, 1)` for that row, which its
/// own tuple `(B % 4, B / 4, A % 4, A / 4) = (0, 0, 1, 0)` contradicts), os 255 ← 255.
#[test]
fn w5_arbitrary_permutation() {
    let ax = Axes::parse("A=16, B=16, C=8, D=8, E=8").unwrap();
    let (os, ot) = (mp(&ax, "B % 4, B / 4, A % 4, A / 4"), mp(&ax, "C"));
    let plan = plan_switch(
        &mp(&ax, "A, B"),
        &mp(&ax, "C"),
        64,
        DType::F32,
        &os,
        &ot,
        custom(256),
    )
    .unwrap();
    assert_eq!((plan.ring_size, plan.cycles), (256, 16384));
    let e = plan_switch(
        &mp(&ax, "A, B"),
        &mp(&ax, "C"),
        64,
        DType::F32,
        &os,
        &ot,
        custom(128),
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            SwitchError::RingSize {
                given: 128,
                derived: 256
            }
        ),
        "{e}"
    );
    // Data on a smaller packet (i32 codes): output slice j at time c lane p holds input slice
    // src(j) at the same time and lane.
    let x = stream(&ax, "A, B", "C", "E");
    let y = x.switch(&os, &ot, custom(256)).unwrap();
    assert_eq!(y.position(), Position::Switch);
    assert_eq!(
        y.mapping(Dim::Slice).m_notation(),
        "B % 4, B / 4, A % 4, A / 4"
    );
    let ints = y.ints();
    let at = |j: usize, c: usize, p: usize| ints[j * 64 + c * 8 + p];
    assert_eq!(at(1, 2, 3), 64_000 + 23);
    assert_eq!(at(4, 0, 0), 16_000);
    assert_eq!(at(255, 7, 7), 255_077);
}

/// W6, Example 2 (multi-dimension broadcast), `X = Y = 2`: Slice `A, B` → `A / 2, X, B / 2, Y`,
/// Time `C` → `C, A % 2, B % 2`: output slice `os = 32(a / 2) + 16x + 2(b / 2) + y` receives from
/// `16a + b` with a, b of the same `a / 2`, `b / 2`: blocks of 32 slices suffice, 16 do not
/// (x and a % 2 differ); ring 32, cycles 32 × 8 × 8 = 2048. Output slice 0, time
/// `4c + 2i + j` holds input slice `16i + j` at time c: time 1 ← slice 1, time 6 (c = 1, i = 1,
/// j = 0) ← slice 16 at time 1.
#[test]
fn w6_multi_dimension_broadcast() {
    let ax = Axes::parse("A=16, B=16, C=8, D=8, E=8, X=2, Y=2").unwrap();
    let (s, t) = (mp(&ax, "A, B"), mp(&ax, "C"));
    let (os, ot) = (mp(&ax, "A / 2, X, B / 2, Y"), mp(&ax, "C, A % 2, B % 2"));
    let plan = plan_switch(&s, &t, 64, DType::F32, &os, &ot, custom(32)).unwrap();
    assert_eq!((plan.ring_size, plan.cycles), (32, 2048));
    let e = plan_switch(&s, &t, 64, DType::F32, &os, &ot, custom(16)).unwrap_err();
    assert!(
        matches!(
            e,
            SwitchError::RingSize {
                given: 16,
                derived: 32
            }
        ),
        "{e}"
    );
    let y = stream(&ax, "A, B", "C", "E")
        .switch(&os, &ot, custom(32))
        .unwrap();
    let ints = y.ints();
    let at = |j: usize, t: usize, p: usize| ints[j * 32 * 8 + t * 8 + p];
    assert_eq!(at(0, 1, 0), 1000);
    assert_eq!(at(0, 6, 2), 16_000 + 10 + 2);
    // Slice 16 (x = 1) receives what slice 0 receives.
    assert_eq!(at(16, 6, 2), at(0, 6, 2));
}

/// W7, Example 3 (partial extraction), `A = 16, B = 4, C = 3, D = 8, E = 8, X = 4`: Slice
/// `A, B, C # 4` → `A, B, X`, Time `D` → `D, C`: only the live `C` values move, the padding
/// slice is left; ring 4. Cycles with the input's 8 time steps: 4 × 8 × 1 = 32 (decision §5.2;
/// the page multiplies by the output's 24 and prints 96).
#[test]
fn w7_partial_extraction() {
    let ax = Axes::parse("A=16, B=4, C=3, D=8, E=8, X=4").unwrap();
    let (s, t) = (mp(&ax, "A, B, C # 4"), mp(&ax, "D"));
    let (os, ot) = (mp(&ax, "A, B, X"), mp(&ax, "D, C"));
    let plan = plan_switch(&s, &t, 8, DType::F32, &os, &ot, custom(4)).unwrap();
    assert_eq!((plan.ring_size, plan.time_steps, plan.cycles), (4, 8, 32));
    let e = plan_switch(&s, &t, 8, DType::F32, &os, &ot, custom(3)).unwrap_err();
    assert!(matches!(e, SwitchError::RingSizePower { given: 3 }), "{e}");
    assert!(e.to_string().contains("ring_size is a power of 2"), "{e}");
    // Dropping a live value: B = 4 → B = 3 moved to Time leaves B = 3 behind.
    let e = plan_switch(
        &s,
        &t,
        8,
        DType::F32,
        &mp(&ax, "A, X, C # 4"),
        &mp(&ax, "D, B = 3"),
        custom(16),
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .contains("rule: values left behind must be padding"),
        "{e}"
    );
}

/// The constraints on broadcast axes, order and position, each refused with its rule.
#[test]
fn custom_broadcast_constraints() {
    let ax = Axes::parse("A=256, B=64, C=32, X=2, Y=2").unwrap();
    let plan = |os: &str, ot: &str| {
        plan_switch(
            &mp(&ax, "A"),
            &mp(&ax, "B"),
            32,
            DType::I8,
            &mp(&ax, os),
            &mp(&ax, ot),
            custom(256),
        )
        .unwrap_err()
        .to_string()
    };
    // (The page's spelling `A / 4, B / 32, A % 4` has 512 positions; one more A digit goes.)
    let e = plan("A / 8, B / 32, A % 4", "B");
    assert!(e.contains("rule: broadcast axes must be new"), "{e}");
    let e = plan("A / 4, X, X", "B, A % 4");
    assert!(
        e.contains("rule: each broadcast axis appears exactly once"),
        "{e}"
    );
    let e = plan("A / 8, X # 4, Y", "B, A % 8 / 2");
    assert!(e.contains("rule: broadcast axes must not be padded"), "{e}");

    let ax = Axes::parse("A=16, B=16, C=8, D=8, E=8").unwrap();
    let plan = |os: &str, ot: &str, ring: usize| {
        plan_switch(
            &mp(&ax, "A, B"),
            &mp(&ax, "C"),
            64,
            DType::I8,
            &mp(&ax, os),
            &mp(&ax, ot),
            custom(ring),
        )
    };
    // B % 4's two digits moved in reverse order: input slices 0, 2, 1, 3.
    let e = plan("A, B / 4, 4", "C, B % 2, B / 2 % 2", 4)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("rule: axes moved from Slice to Time keep their relative input order"),
        "{e}"
    );
    // The same digits in order: accepted, blocks of 4 slices.
    let ok = plan("A, B / 4, 4", "C, B / 2 % 2, B % 2", 4).unwrap();
    assert_eq!(ok.ring_size, 4);
    // The page's innermost example: C between the moved A % 2 and B % 2.
    let e = plan("A / 2, 2, B / 2, 2", "A % 2, C, B % 2", 256)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("rule: axes moved from Slice to Time take the innermost positions"),
        "{e}"
    );
}

const KERNEL: &str = r#"
axes = "C=3, T=2, P=8, X=4"

[[dm]]
name = "x"
dtype = "i8"
chip = "1"
cluster = "1"
slice = "C # 4"
element = "T, P"
address = 0

[[stage]]
op = "begin"
tensor = "x"

[[stage]]
op = "fetch"
time = "T"
packet = "P"

[[stage]]
op = "switch"
slice = "X"
time = "T, C"
config = "CustomBroadcast"
ring_size = 4

[[stage]]
op = "collect"
time = "T, C"
packet = "P # 32"

[[stage]]
op = "commit_trim"
packet = "P"

[[stage]]
op = "commit"
element = "T, C, P"
name = "y"
address = 64
logical = "X, T, C, P"
"#;

/// A custom switch in a kernel file (partial extraction over 4 slices): every output slice
/// receives the three live `C` slices, so `y[x, t, c, p] = x[c, t, p]`. Schedule: fetch 2
/// (two 8-byte packets), switch 4 × 2 × 1 = 8, collect 6 flits, commit 6 writes; total 8
/// (the switch is the bottleneck; collect and commit stall).
#[test]
fn custom_broadcast_in_a_kernel_file() {
    let k = match PipelineKind::parse(KERNEL).unwrap() {
        PipelineKind::Kernel(k) => k,
        PipelineKind::Stream(_) => panic!("not a kernel"),
    };
    let x: Vec<u64> = (0..48).collect();
    let run = k.run(&[("x".into(), KernelInput::Codes(x))]).unwrap();
    let y = run.values("y").unwrap();
    for (i, v) in y.iter().enumerate() {
        let (t, c, p) = (i / 24 % 2, i / 8 % 3, i % 8);
        assert_eq!(*v, (16 * c + 8 * t + p) as u64, "y[{i}]");
    }
    let inv = &run.schedule.invocations[0].invocation;
    let busy: Vec<u64> = inv.engines.iter().map(|e| e.busy).collect();
    assert_eq!(busy, vec![2, 8, 6, 6]);
    assert_eq!(inv.total, 8);
}
