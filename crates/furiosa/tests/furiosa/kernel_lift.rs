//! Lifts and interleaved fetches as kernel-file stages (`docs/furiosa-engines.md` §4.4 L1–L4,
//! I1–I2, §11.2): `fetch_slice_lift` / `fetch_cluster_lift` / `fetch_chip_lift` after a
//! `fetch`, and `begin_interleaved` with its `fetch`. The shipped examples
//! `examples/furiosa/kernel_slice_lift.toml` and `kernel_interleaved.toml` run here; expected
//! values, cycles and errors are the document's hand derivations (L1: slice 2a + h reads rows
//! 2h, 2h + 1 from base 32h elements, 2 time steps instead of 4; I1: time 2a + i holds row a
//! of lhs or rhs, 32 steps of one 32-byte read).

use npusim_furiosa::pipeline::{Kernel, KernelInput, PipelineKind};
use npusim_furiosa::schedule::Engine;

const LIFT: &str = include_str!("../../../../examples/furiosa/kernel_slice_lift.toml");
const INTERLEAVED: &str = include_str!("../../../../examples/furiosa/kernel_interleaved.toml");

fn kernel(text: &str) -> Kernel {
    match PipelineKind::parse(text).expect("parse") {
        PipelineKind::Kernel(k) => k,
        PipelineKind::Stream(_) => panic!("not a kernel file"),
    }
}

/// x[a, q, v] = 64a + 16q + v as raw bf16 codes, logical order A, Q, V.
fn l1_input() -> Vec<u64> {
    (0..128 * 4 * 16).collect()
}

/// The busy cycles of `engine` in the run's only invocation.
fn busy(run: &npusim_furiosa::pipeline::KernelRun, engine: Engine) -> u64 {
    let inv = &run.schedule.invocations[0].invocation;
    inv.engines
        .iter()
        .find(|e| e.record.engine == engine)
        .map(|e| e.busy)
        .unwrap_or_else(|| panic!("no {engine:?} in {inv:?}"))
}

/// L1 as a kernel file: y (placed `Slice = A, Q / 2`, `Element = Q % 2, V`) holds x; the
/// lifted fetch is 2 time steps of one read (busy 2, where the plain fetch's is 4); collect 2
/// flits, commit 2 packets of 32 bytes: total 2 (§10.2, no fill).
#[test]
fn l1_slice_lift_kernel_copies_x_in_two_steps() {
    let run = kernel(LIFT)
        .run(&[("x".into(), KernelInput::Codes(l1_input()))])
        .expect("run");
    assert_eq!(run.values("y").unwrap(), l1_input());
    assert!(
        run.stages[2].contains("A, Q / 2") && run.stages[2].contains("Q % 2"),
        "{}",
        run.stages[2]
    );
    assert_eq!(busy(&run, Engine::Fetch), 2);
    assert_eq!(busy(&run, Engine::Collect), 2);
    assert_eq!(run.schedule.makespan, 2);
    let y = run.tensor("y").unwrap();
    assert_eq!(y.tensor.slice().m_notation(), "A, Q / 2");
    // The same kernel without the lift reads 4 rows one after another.
    let plain = LIFT
        .replace(
            "[[stage]]\nop = \"fetch_slice_lift\"\nslice = \"A, Q / 2\"\ntime = \"Q % 2\"\n\n",
            "",
        )
        .replace("time = \"Q % 2\"", "time = \"Q\"")
        .replace("element = \"Q % 2, V\"", "element = \"Q, V\"");
    let run = kernel(&plain)
        .run(&[("x".into(), KernelInput::Codes(l1_input()))])
        .expect("plain run");
    assert_eq!(busy(&run, Engine::Fetch), 4);
    assert_eq!(run.values("y").unwrap(), l1_input());
}

/// Replaces the lift stage of the L1 file by `stage` (TOML keys after `op`).
fn with_lift(stage: &str) -> String {
    LIFT.replace(
        "op = \"fetch_slice_lift\"\nslice = \"A, Q / 2\"\ntime = \"Q % 2\"",
        stage,
    )
}

fn refusal(text: &str) -> String {
    kernel(text)
        .run(&[("x".into(), KernelInput::Codes(l1_input()))])
        .expect_err("refused")
        .to_string()
}

/// L3's rules as kernel files, each refusal naming the stage, the rule and the numbers.
#[test]
fn l3_refused_lifts_name_the_rule_and_the_numbers() {
    let e = refusal(&with_lift(
        "op = \"fetch_slice_lift\"\nslice = \"A\"\ntime = \"Q % 2\"",
    ));
    assert!(
        e.starts_with("stage 3 (fetch_slice_lift): ")
            && e.contains("m![A] (128 positions) from m![A, 2] (256)")
            && e.contains("rule: the input and output sizes of the lifted dimension match"),
        "{e}"
    );
    let e = refusal(&with_lift(
        "op = \"fetch_slice_lift\"\nslice = \"Q / 2, A\"\ntime = \"Q % 2\"",
    ));
    assert!(e.contains("rule: only broadcasts change"), "{e}");
    // Time = Q kept: unit 1 from base 32 would read Q = 2, 3, 4, 5.
    let e = refusal(&with_lift(
        "op = \"fetch_slice_lift\"\nslice = \"A, Q / 2\"\ntime = \"Q\"",
    ));
    assert!(e.contains("rule: lifted axes leave OutTime"), "{e}");
    // A second slice lift: at most once.
    let twice = with_lift(
        "op = \"fetch_slice_lift\"\nslice = \"A, Q / 2\"\ntime = \"Q % 2\"\n\n[[stage]]\nop = \"fetch_slice_lift\"\nslice = \"A, Q / 2\"\ntime = \"Q % 2\"",
    );
    let e = refusal(&twice);
    assert!(
        e.starts_with("stage 4 (fetch_slice_lift): ")
            && e.contains("Slice is lifted already (rule: at most one lift per dimension)"),
        "{e}"
    );
    // A cluster lift after the slice lift: order.
    let order = with_lift(
        "op = \"fetch_slice_lift\"\nslice = \"A, Q / 2\"\ntime = \"Q % 2\"\n\n[[stage]]\nop = \"fetch_cluster_lift\"\ncluster = \"1 # 2\"\ntime = \"Q % 2\"",
    );
    let e = refusal(&order);
    assert!(
        e.contains("fetch_cluster_lift after Slice was lifted (rule: lifts are called in Chip, Cluster, Slice order)"),
        "{e}"
    );
    // A lift on a CollectTensor: the transition rule lists what a collect goes on with.
    let late = LIFT.replace(
        "[[stage]]\nop = \"commit_trim\"",
        "[[stage]]\nop = \"fetch_slice_lift\"\nslice = \"A, Q / 2\"\ntime = \"Q % 2\"\n\n[[stage]]\nop = \"commit_trim\"",
    );
    let e = refusal(&late);
    assert!(
        e.starts_with(
            "stage 5 (fetch_slice_lift): `fetch_slice_lift` cannot be called on a CollectTensor"
        ),
        "{e}"
    );
}

/// L4: i8 with V = 2: slice 2a + 1's base is element 4 = 4 bytes, not a multiple of 8.
#[test]
fn l4_a_base_off_the_8_byte_grid_is_refused() {
    let text = LIFT
        .replace("V=16", "V=2")
        .replace("dtype = \"bf16\"", "dtype = \"i8\"")
        .replace("packet = \"V\"", "packet = \"V # 8\"");
    let e = kernel(&text).run(&[]).expect_err("refused").to_string();
    assert!(
        e.starts_with("stage 3 (fetch_slice_lift): ")
            && e.contains("unit 1 reads from base 4 elements = 4 bytes (rule: every lift base is a multiple of 8 bytes)"),
        "{e}"
    );
}

/// lhs[a, b] = a + b, rhs[a, b] = 100 + a + b (i8 codes, logical order A, B).
fn i1_inputs() -> Vec<(String, KernelInput)> {
    let lhs: Vec<u64> = (0..16 * 32).map(|i| (i / 32 + i % 32) as u64).collect();
    let rhs: Vec<u64> = lhs.iter().map(|v| v + 100).collect();
    vec![
        ("lhs".into(), KernelInput::Codes(lhs)),
        ("rhs".into(), KernelInput::Codes(rhs)),
    ]
}

/// I1 as a kernel file: y[a, i, b] is lhs[a, b] (i = 0) or rhs[a, b] (i = 1): the stream's
/// time 3 (a = 1, i = 1) lane 2 holds 103, time 0 lane 31 holds 31, time 31 (a = 15, i = 1)
/// lane 0 holds 115. 32 time steps of one 32-byte read; collect 32 flits, commit 32: total 32.
#[test]
fn i1_interleaved_kernel_alternates_lhs_and_rhs() {
    let run = kernel(INTERLEAVED).run(&i1_inputs()).expect("run");
    let y = run.values("y").unwrap();
    let at = |t: usize, b: usize| y[t * 32 + b];
    assert_eq!(at(3, 2), 103);
    assert_eq!(at(0, 31), 31);
    assert_eq!(at(31, 0), 115);
    assert_eq!(busy(&run, Engine::Fetch), 32);
    assert_eq!(run.schedule.makespan, 32);
    // Both tensors are read: the invocation's read ranges are theirs.
    assert_eq!(
        run.schedule.invocations[0].invocation.reads,
        vec![0..512, 512..1024]
    );
    assert!(
        run.stages[0].contains("`lhs` and `rhs` interleaved along m![I]"),
        "{}",
        run.stages[0]
    );
}

/// I2 as kernel files: a size-4 I, different Elements, a Time without I, and a lift after an
/// interleaved fetch are refused naming the stage and the rule.
#[test]
fn i2_refused_interleaves_name_the_rule() {
    let refuse = |text: &str| {
        kernel(text)
            .run(&i1_inputs())
            .expect_err("refused")
            .to_string()
    };
    let e = refuse(&INTERLEAVED.replace("I=2", "I=4"));
    assert!(
        e.starts_with("stage 1 (begin_interleaved): the interleave axis m![I] has 4 positions")
            && e.contains("at most two tensors"),
        "{e}"
    );
    let e = refuse(&INTERLEAVED.replacen(
        "element = \"A, B\"\naddress = 512",
        "element = \"B, A\"\naddress = 512",
        1,
    ));
    assert!(
        e.contains("lhs and rhs differ in Element: m![A, B] vs m![B, A] (rule: interleaved tensors have identical mappings)"),
        "{e}"
    );
    let e = refuse(&INTERLEAVED.replacen("time = \"A, I\"", "time = \"A\"", 1));
    assert!(
        e.starts_with("stage 2 (fetch): Time = m![A] does not use the interleave axis I"),
        "{e}"
    );
    let e = refuse(&INTERLEAVED.replace(
        "[[stage]]\nop = \"collect\"",
        "[[stage]]\nop = \"fetch_slice_lift\"\nslice = \"1\"\ntime = \"A, I\"\n\n[[stage]]\nop = \"collect\"",
    ));
    assert!(
        e.starts_with("stage 3 (fetch_slice_lift): a lift reads one replicated tensor"),
        "{e}"
    );
    let e = refuse(&INTERLEAVED.replace("rhs = \"rhs\"", "rhs = \"w\""));
    assert!(e.contains("no DM tensor is named `w`"), "{e}");
}
