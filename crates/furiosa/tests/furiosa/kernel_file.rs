//! Kernel files (`docs/furiosa-engines.md` §11.2): pipeline files with `[[dm]]` tensors run
//! from DM to DM — the shipped K6 and K7 files against the document's hand-derived values and
//! schedules (§9.4, §10.4), `.npy` in and out, and the file's and the order's refusals.

use npusim_furiosa::pipeline::{Kernel, KernelInput, PipelineKind};

const K6: &str = include_str!("../../examples/pipelines/kernel_inter_slice_reduce_cast.toml");
const K7: &str = include_str!("../../examples/pipelines/kernel_full_sum.toml");

fn kernel(text: &str) -> Kernel {
    match PipelineKind::parse(text).expect("parse") {
        PipelineKind::Kernel(k) => k,
        PipelineKind::Stream(_) => panic!("not a kernel file"),
    }
}

/// K6's input in its logical order `R, T, A`: x[r, t, a] = a + 1000t − 100r.
fn k6_input() -> Vec<u64> {
    let mut codes = Vec::with_capacity(4 * 16 * 512);
    for r in 0..4i64 {
        for t in 0..16i64 {
            for a in 0..512i64 {
                codes.push((a + 1000 * t - 100 * r) as i32 as u32 as u64);
            }
        }
    }
    codes
}

fn check_k6_output(y: &[u64]) {
    assert_eq!(y.len(), 16 * 512);
    for t in 0..16i64 {
        for a in 0..512i64 {
            let want = (4 * a + 4000 * t - 600) as i8;
            assert_eq!(y[(t * 512 + a) as usize] as u8 as i8, want, "y[{t}, {a}]");
        }
    }
    let at = |t: usize, a: usize| y[t * 512 + a] as u8 as i8;
    assert_eq!(
        (at(0, 0), at(1, 3), at(0, 150), at(15, 511)),
        (-88, 84, 0, 4)
    );
}

#[test]
fn k6_file_runs_dm_to_dm_with_its_schedule() {
    let k = kernel(K6);
    let run = k
        .run(&[("x".into(), KernelInput::Codes(k6_input()))])
        .expect("run");
    check_k6_output(&run.values("y").expect("y"));
    assert_eq!(run.stages.len(), 9);
    assert!(
        run.stages[8].contains(
            "DmTensor `y` = i8<m![1], m![1 # 2], m![A / 8, 1 # 4], m![T, A % 8]> at bytes 512..640"
        ),
        "{}",
        run.stages[8]
    );
    // §10.4 K6: fetch 16, collect 16, vector 16 / 3, cast 16, commit 16: total 19.
    assert_eq!(run.schedule.makespan, 19);
    let engines: Vec<(&str, u64, u64, u64)> = run.schedule.invocations[0]
        .invocation
        .engines
        .iter()
        .map(|e| (e.record.engine.name(), e.busy, e.start, e.finish))
        .collect();
    assert_eq!(
        engines,
        [
            ("fetch", 16, 0, 16),
            ("collect", 16, 0, 16),
            ("vector", 16, 0, 19),
            ("cast", 16, 3, 19),
            ("commit", 16, 3, 19),
        ]
    );
}

/// The "done when": the kernel from a `.npy` to a `.npy`.
#[test]
fn k6_file_from_npy_to_npy() {
    let dir = std::env::temp_dir().join(format!("npusim-k6-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let (x, y) = (dir.join("x.npy"), dir.join("y.npy"));
    let k = kernel(K6);
    let first = k
        .run(&[("x".into(), KernelInput::Codes(k6_input()))])
        .expect("run");
    first.save("x", &x).expect("save x");
    let run = k
        .run(&[("x".into(), KernelInput::Npy(x.clone()))])
        .expect("run from .npy");
    run.save("y", &y).expect("save y");
    // Read y.npy back through a kernel whose input is y itself.
    let echo = "axes = \"A=512, T=16\"\n[[dm]]\nname = \"y\"\ndtype = \"i8\"\nchip = \"1\"\n\
                cluster = \"1\"\nslice = \"1\"\nelement = \"T, A\"\naddress = 0\nlogical = \"T, A\"\n";
    let back = kernel(echo)
        .run(&[("y".into(), KernelInput::Npy(y.clone()))])
        .expect("read y.npy");
    check_k6_output(&back.values("y").expect("y"));
    let bytes = std::fs::read(&y).expect("y.npy");
    assert!(bytes.starts_with(b"\x93NUMPY"));
    std::fs::remove_dir_all(&dir).ok();
}

/// §9.4 K7: cluster b holds −4096 + 8192b; §10.4: total 272.
#[test]
fn k7_file_full_sum() {
    let k = kernel(K7);
    let x: Vec<u64> = (0..2i64)
        .flat_map(|b| (0..8192i64).map(move |r| (r - 4096 + b) as i32 as u32 as u64))
        .collect();
    let run = k.run(&[("x".into(), KernelInput::Codes(x))]).expect("run");
    let y: Vec<i32> = run
        .values("y")
        .expect("y")
        .iter()
        .map(|&c| c as u32 as i32)
        .collect();
    assert_eq!(y, [-4096, 4096]);
    assert_eq!(run.schedule.makespan, 272);
}

#[test]
fn kernel_files_refuse_what_they_cannot_run() {
    let err = |text: &str| match PipelineKind::parse(text) {
        Err(e) => e.to_string(),
        Ok(PipelineKind::Kernel(k)) => k.run(&[]).expect_err("must fail").to_string(),
        Ok(PipelineKind::Stream(p)) => {
            let n = p.input_positions().expect("positions");
            p.run(vec![0; n]).expect_err("must fail").to_string()
        }
    };
    let e = err(&K6.replace("address = 0\n", "address = 0\nfoo = 1\n"));
    assert!(
        e.starts_with("dm 1: unknown key `foo` (known keys: name, dtype, chip"),
        "{e}"
    );
    let e = err(&K6.replace("op = \"fetch\"", "op = \"fetchh\""));
    assert!(e.contains("stage 2: unknown op `fetchh`"), "{e}");
    // collect before fetch.
    let e = err(&K6.replacen(
        "op = \"fetch\"\ntime = \"T\"\npacket = \"A % 8\"",
        "op = \"collect\"\ntime = \"T\"\npacket = \"A % 8\"",
        1,
    ));
    assert_eq!(e, "stage 2 (collect): a BeginTensor goes on with fetch");
    let e = err(&K6.replace("tensor = \"x\"", "tensor = \"z\""));
    assert_eq!(e, "no DM tensor is named `z` (tensors: x)");
    let cut = &K6[..K6.find("[[stage]]\nop = \"commit\"").expect("commit")];
    assert_eq!(
        err(cut),
        "the kernel ends inside the invocation begun at stage 1: end it with a commit stage"
    );
    // An engine's own rule, placed at its stage: an 8-byte i32 packet of 2 elements.
    let e = err(&K6.replacen("packet = \"A % 8\"", "packet = \"A % 2\"", 1));
    assert!(e.starts_with("stage 2 (fetch): "), "{e}");
    let e = kernel(K6)
        .run(&[("w".into(), KernelInput::Codes(vec![]))])
        .expect_err("unknown input")
        .to_string();
    assert_eq!(e, "no DM tensor is named `w` (tensors: x)");
    // A DM stage in a stream pipeline.
    let stream = include_str!("../../examples/pipelines/inter_slice_dummy.toml");
    let e = err(&format!(
        "{stream}\n[[stage]]\nop = \"commit_trim\"\npacket = \"A % 8\"\n"
    ));
    assert!(
        e.contains("stage 4 (commit_trim): moves data between DM and a stream"),
        "{e}"
    );
}

/// W1 as a kernel file (§5.3): the switch moves slice s's packets to output slice j with
/// s = 2·(j % 2) + j / 2; the logical tensor is unchanged; the schedule is switch-bound (8).
#[test]
fn w1_switch_in_a_kernel_file() {
    let text = "axes = \"S=4, T=2, P=8\"\n\
        [[dm]]\nname = \"x\"\ndtype = \"i8\"\nchip = \"1\"\ncluster = \"1\"\nslice = \"S\"\n\
        element = \"T, P\"\naddress = 0\n\
        [[stage]]\nop = \"begin\"\ntensor = \"x\"\n\
        [[stage]]\nop = \"fetch\"\ntime = \"T\"\npacket = \"P\"\n\
        [[stage]]\nop = \"switch\"\nslice = \"S % 2, S / 2\"\ntime = \"T\"\n\
        config = \"Transpose\"\nslice1 = 2\nslice0 = 2\n\
        [[stage]]\nop = \"collect\"\ntime = \"T\"\npacket = \"P # 32\"\n\
        [[stage]]\nop = \"commit_trim\"\npacket = \"P\"\n\
        [[stage]]\nop = \"commit\"\nelement = \"T, P\"\nname = \"y\"\naddress = 16\n";
    let k = kernel(text);
    let x: Vec<u64> = (0..64).collect();
    let run = k
        .run(&[("x".into(), KernelInput::Codes(x.clone()))])
        .expect("run");
    assert_eq!(run.values("y").expect("y"), x, "the logical tensor is kept");
    for j in 0..4usize {
        let s = 2 * (j % 2) + j / 2;
        let id = npusim_furiosa::dm::SliceId {
            chip: 0,
            cluster: 0,
            slice: j,
        };
        let want: Vec<u8> = (0..16).map(|i| (16 * s + i) as u8).collect();
        assert_eq!(
            run.dm.read_bytes(id, 16, 16).expect("read"),
            want,
            "slice {j}"
        );
    }
    assert_eq!(run.schedule.makespan, 8);
    assert_eq!(
        run.schedule.invocations[0].invocation.summary(),
        "fetch 2, switch 8, collect 2 (stall 6), commit 2 (stall 6): 8 cycles"
    );
    let e = kernel(&text.replace("slice0 = 2\n", ""))
        .run(&[])
        .expect_err("slice0 missing")
        .to_string();
    assert_eq!(
        e,
        "stage 3 (switch): config Transpose needs the key `slice0`"
    );
}
