//! The sub context (`docs/furiosa-engines.md` §4.3, §8.2, §8.4 T5, §10.4 M1): 8-byte DM reads
//! and writes, no table lookup and no commit cast, and kernel files with `context = "sub"`.
//! Expected cycles: the Fetch Engine page's "read_size is fixed at 8 bytes" and the Commit
//! Engine page's "write_size fixed at 8 bytes": a 32-byte packet takes 4 accesses.

use npusim_furiosa::DType;
use npusim_furiosa::dm::{Dm, DmTensor, SliceId};
use npusim_furiosa::engine::context::check_main_only;
use npusim_furiosa::engine::fetch::begin;
use npusim_furiosa::mapping::{Axes, Mapping};
use npusim_furiosa::pipeline::{Kernel, KernelInput, PipelineKind};
use npusim_furiosa::schedule::{Context, EngineRecord, InvocationSchedule, Schedule};

fn m(ax: &Axes, s: &str) -> Mapping {
    Mapping::parse(s, ax).unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn place(dm: &Dm, ax: &Axes, dtype: DType, element: &str, address: usize) -> DmTensor {
    let one = m(ax, "1");
    DmTensor::from_addr(dm, dtype, &one, &one, &one, &m(ax, element), address).expect("place")
}

/// T5: K2 (f8e4m3 `A = 3, B = 5, C = 2`, Time `A`, Packet `[B, C] # 32`) on the sub context:
/// the 32-byte packets are read 8 bytes at a time (4 reads, 12 cycles; 3 on main) and written
/// 8 bytes at a time (4 writes, 12 cycles; 3 on main).
#[test]
fn t5_sub_context_reads_and_writes_8_bytes() {
    let ax = Axes::parse("A=3, B=5, C=2").unwrap();
    let mut dm = Dm::new(1);
    let x = place(&dm, &ax, DType::F8E4M3, "A, B, C", 0);
    let codes: Vec<u64> = (0..30).collect();
    x.write_logical(&mut dm, &["A", "B", "C"], &codes).unwrap();
    let (time, packet) = (m(&ax, "A"), m(&ax, "[B, C] # 32"));
    let main = begin(&dm, &x.view()).plan(&time, &packet).unwrap();
    assert_eq!(
        (main.read_bytes, main.reads_per_packet, main.cycles),
        (32, 1, 3)
    );
    let sub = main.in_context(Context::Sub);
    assert_eq!(
        (sub.read_bytes, sub.reads_per_packet, sub.cycles),
        (8, 4, 12)
    );
    let stream = begin(&dm, &x.view())
        .fetch(&time, &packet)
        .unwrap()
        .collect(&time, &packet)
        .unwrap()
        .commit_trim(&packet)
        .unwrap();
    let (_, plan) = stream
        .commit_at(&mut dm, &m(&ax, "A, [B, C] # 32"), 1024)
        .unwrap();
    assert_eq!(
        (plan.write_bytes, plan.writes_per_packet, plan.cycles),
        (32, 1, 3)
    );
    let plan = plan.in_context(Context::Sub);
    assert_eq!(
        (plan.write_bytes, plan.writes_per_packet, plan.cycles),
        (8, 4, 12)
    );
    // A packet already at most 8 bytes keeps its access (F5's 8-byte packets: 15 cycles).
    let f5 = begin(&dm, &x.view())
        .plan(&m(&ax, "A, B"), &m(&ax, "C # 8"))
        .unwrap()
        .in_context(Context::Sub);
    assert_eq!((f5.read_bytes, f5.cycles), (8, 15));
}

/// F12 / T3: the table lookup and the commit cast are main-context stages.
#[test]
fn main_only_stages_are_refused_on_sub() {
    assert!(check_main_only("fetch_table_lookup", Context::Main).is_ok());
    let e = check_main_only("fetch_table_lookup", Context::Sub).unwrap_err();
    assert_eq!(
        e.to_string(),
        "fetch_table_lookup runs in the main context only, not in the sub context (rule: the Fetch Adapter's table lookup and the Commit Adapter's cast are main-context stages; the sub context trims but does not cast)"
    );
}

/// M1 (§10.4): K4's two segments (`A = 2048, B = 32`, i8, tiles of 1024 rows), segment 0 on
/// main (fetch and commit 1024 cycles: one 32-byte access per packet), segment 1 on sub (4
/// accesses per packet: 4096). Disjoint DM ranges and no Vector Engine: the contexts overlap,
/// both start at 0, makespan 4096. After both, y equals x.
#[test]
fn m1_segments_on_main_and_sub_overlap() {
    let ax = Axes::parse("A=2048, B=32").unwrap();
    let mut dm = Dm::new(1);
    let x = place(&dm, &ax, DType::I8, "A, B", 0);
    let y = place(&dm, &ax, DType::I8, "A, B", 262_144);
    let codes: Vec<u64> = (0..65_536u64).map(|i| (i * 7 + i / 251) % 256).collect();
    x.write_logical(&mut dm, &["A", "B"], &codes).unwrap();
    let (index, tile) = (m(&ax, "A"), m(&ax, "A = 1024 # 2048, B"));
    let (time, packet) = (m(&ax, "A = 1024"), m(&ax, "B"));
    let mut schedule = Schedule::new();
    for (k, context) in [(0usize, Context::Main), (1, Context::Sub)] {
        let src = x.view().tile(&index, 1024, &tile, 1024 * k).unwrap();
        let dst = y.view_mut().tile(&index, 1024, &tile, 1024 * k).unwrap();
        let b = begin(&dm, &src);
        let fp = b.plan(&time, &packet).unwrap().in_context(context);
        let stream = b
            .fetch(&time, &packet)
            .unwrap()
            .collect(&time, &packet)
            .unwrap()
            .commit_trim(&packet)
            .unwrap();
        let cp = stream
            .commit_view(&mut dm, &dst)
            .unwrap()
            .in_context(context);
        let want = if k == 0 { 1024 } else { 4096 };
        assert_eq!((fp.cycles, cp.cycles), (want, want));
        let inv = InvocationSchedule::new(
            context,
            &[
                EngineRecord::fetch(&fp, 0),
                EngineRecord::collect(1024),
                EngineRecord::commit(&cp, 0),
            ],
        )
        .with_ranges(
            std::iter::once(32_768 * k..32_768 * (k + 1)).collect(),
            std::iter::once(262_144 + 32_768 * k..262_144 + 32_768 * (k + 1)).collect(),
        );
        assert_eq!(inv.total, want as u64);
        assert_eq!(schedule.push(inv), 0);
    }
    assert_eq!(schedule.makespan, 4096);
    let out = dm
        .read_bytes(
            SliceId {
                chip: 0,
                cluster: 0,
                slice: 0,
            },
            262_144,
            65_536,
        )
        .unwrap();
    assert!(out.iter().zip(&codes).all(|(a, b)| u64::from(*a) == *b));
}

const SUB_K2: &str = r#"
axes = "A=3, B=5, C=2"

[[dm]]
name = "x"
dtype = "f8e4m3"
chip = "1"
cluster = "1"
slice = "1"
element = "A, B, C"
address = 0

[[stage]]
op = "begin"
tensor = "x"
context = "sub"

[[stage]]
op = "fetch"
time = "A"
packet = "[B, C] # 32"

[[stage]]
op = "collect"
time = "A"
packet = "[B, C] # 32"

[[stage]]
op = "commit_trim"
packet = "[B, C] # 32"

[[stage]]
op = "commit"
element = "A, [B, C] # 32"
name = "y"
address = 1024
"#;

fn kernel(text: &str) -> Kernel {
    match PipelineKind::parse(text).expect("parse") {
        PipelineKind::Kernel(k) => k,
        PipelineKind::Stream(_) => panic!("not a kernel file"),
    }
}

/// A kernel file on the sub context: T5's K2 runs with fetch 12 (4 reads of 3 packets),
/// collect 3, commit 12 (4 writes of 3 packets): total 12, and copies the 30 bytes.
#[test]
fn kernel_files_run_on_the_sub_context() {
    let run = kernel(SUB_K2)
        .run(&[("x".into(), KernelInput::Codes((0..30).collect()))])
        .expect("run");
    let inv = &run.schedule.invocations[0].invocation;
    assert_eq!(inv.context, Context::Sub);
    let busy: Vec<u64> = inv.engines.iter().map(|e| e.busy).collect();
    assert_eq!(busy, vec![12, 3, 12]);
    assert_eq!(inv.total, 12);
    assert_eq!(run.values("y").unwrap(), (0..30).collect::<Vec<u64>>());
}

/// `fetch_table_lookup` and `commit_cast` in a sub-context kernel are refused with the rule.
#[test]
fn kernel_files_refuse_main_only_stages_on_sub() {
    let lookup = SUB_K2.replace(
        "[[stage]]\nop = \"collect\"",
        "[[stage]]\nop = \"fetch_table_lookup\"\ndtype = \"bf16\"\n\n[[stage]]\nop = \"collect\"",
    );
    let e = kernel(&lookup).run(&[]).unwrap_err().to_string();
    assert!(
        e.starts_with(
            "stage 3 (fetch_table_lookup): fetch_table_lookup runs in the main context only"
        ),
        "{e}"
    );
    let cast = SUB_K2
        .replace("dtype = \"f8e4m3\"", "dtype = \"f32\"")
        .replace("time = \"A\"", "time = \"A, B\"")
        .replace("\"[B, C] # 32\"", "\"C # 8\"")
        .replace("\"A, [B, C] # 32\"", "\"A, B, C # 8\"")
        .replace(
            "[[stage]]\nop = \"commit\"\n",
            "[[stage]]\nop = \"commit_cast\"\n\n[[stage]]\nop = \"commit\"\n",
        );
    let e = kernel(&cast).run(&[]).unwrap_err().to_string();
    assert!(
        e.starts_with("stage 5 (commit_cast): commit_cast runs in the main context only"),
        "{e}"
    );
}
