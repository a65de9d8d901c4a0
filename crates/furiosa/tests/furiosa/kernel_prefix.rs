//! `Kernel::run_prefix`: the stages of a kernel under construction (what the Python `Device`
//! checks at each call, `docs/furiosa-engines.md` §14) may end inside an invocation; every
//! stage so far is checked, and a refused one is named. `Kernel::run` still refuses a kernel
//! that ends inside an invocation.

use npusim_furiosa::pipeline::{Kernel, PipelineKind};

const HEAD: &str = r#"axes = "A=3, B=5, C=2"
[[dm]]
name = "x"
dtype = "f8e4m3"
chip = "1"
cluster = "1"
slice = "1"
element = "A, B, C"
address = 0
"#;

fn kernel(stages: &str) -> Kernel {
    match PipelineKind::parse(&format!("{HEAD}{stages}")).expect("parse") {
        PipelineKind::Kernel(k) => k,
        PipelineKind::Stream(_) => panic!("not a kernel file"),
    }
}

const OPEN: &str = r#"
[[stage]]
op = "begin"
tensor = "x"
[[stage]]
op = "fetch"
time = "A, B"
packet = "C # 8"
"#;

/// An open invocation (begin, fetch) is a valid prefix: nothing is scheduled; `run` refuses it
/// as unfinished.
#[test]
fn an_open_invocation_is_a_valid_prefix_but_not_a_kernel() {
    let k = kernel(OPEN);
    let run = k.run_prefix(&[]).expect("prefix");
    assert_eq!(run.stages.len(), 2);
    assert!(run.schedule.invocations.is_empty());
    let e = k.run(&[]).expect_err("unfinished").to_string();
    assert!(
        e.contains("the kernel ends inside the invocation begun at stage 1"),
        "{e}"
    );
}

/// The prefix's last stage is checked when it is added: a table lookup on the sub context
/// (F12, main only), a packet of 2 bytes entering Collect (F8: not a multiple of 8), and a
/// collect before any fetch are refused naming the stage and the rule.
#[test]
fn the_last_stage_of_a_prefix_is_checked() {
    let sub = OPEN.replace("tensor = \"x\"", "tensor = \"x\"\ncontext = \"sub\"");
    let e = kernel(&format!(
        "{sub}[[stage]]\nop = \"fetch_table_lookup\"\ndtype = \"bf16\"\n"
    ))
    .run_prefix(&[])
    .expect_err("main only")
    .to_string();
    assert!(
        e.starts_with(
            "stage 3 (fetch_table_lookup): fetch_table_lookup runs in the main context only"
        ),
        "{e}"
    );
    let two = OPEN.replace("packet = \"C # 8\"", "packet = \"C\"");
    let e = kernel(&format!(
        "{two}[[stage]]\nop = \"collect\"\ntime = \"A, B\"\npacket = \"C # 16\"\n"
    ))
    .run_prefix(&[])
    .expect_err("alignment")
    .to_string();
    assert!(
        e.starts_with("stage 3 (collect): ") && e.contains("2 bytes"),
        "{e}"
    );
    let e = kernel("\n[[stage]]\nop = \"begin\"\ntensor = \"x\"\n[[stage]]\nop = \"collect\"\ntime = \"A\"\npacket = \"C\"\n")
        .run_prefix(&[])
        .expect_err("order")
        .to_string();
    assert_eq!(e, "stage 2 (collect): a BeginTensor goes on with fetch");
    // A mapping over an undeclared axis names the stage, its key and the column.
    let bad = OPEN.replace("time = \"A, B\"", "time = \"A, Z\"");
    let e = kernel(&bad).run_prefix(&[]).expect_err("axis").to_string();
    assert!(e.starts_with("stage 2 (fetch) time: "), "{e}");
}
