//! The pipeline file read by the library (issue 29 item 4): serde with unknown keys refused and
//! the known ones listed, stage and op names taken from the enums, every error placed at its
//! stage and key; the shipped pipelines read and run.

use npusim_furiosa::pipeline::{Pipeline, PipelineFileError, StageSpec};
use npusim_furiosa::{
    ClipBinaryOp, DType, FpBinaryOp, FxpBinaryOp, InterSliceReduceOpF32, InterSliceReduceOpI32,
    IntraSliceReduceOpF32, IntraSliceReduceOpI32, LogicBinaryOp,
};

const DUMMY: &str = include_str!("../../examples/pipelines/inter_slice_dummy.toml");

pub(crate) const SHIPPED: [(&str, &str); 8] = [
    (
        "intra_slice_reduce",
        include_str!("../../examples/pipelines/intra_slice_reduce.toml"),
    ),
    (
        "cast_engine_cast_i32_to_i8",
        include_str!("../../examples/pipelines/cast_engine_cast_i32_to_i8.toml"),
    ),
    (
        "cast_engine_cast_padded",
        include_str!("../../examples/pipelines/cast_engine_cast_padded.toml"),
    ),
    (
        "inter_slice_add_then_reduce",
        include_str!("../../examples/pipelines/inter_slice_add_then_reduce.toml"),
    ),
    (
        "inter_slice_broadcast",
        include_str!("../../examples/pipelines/inter_slice_broadcast.toml"),
    ),
    ("inter_slice_dummy", DUMMY),
    (
        "inter_slice_promotion",
        include_str!("../../examples/pipelines/inter_slice_promotion.toml"),
    ),
    (
        "inter_slice_reduce_then_add",
        include_str!("../../examples/pipelines/inter_slice_reduce_then_add.toml"),
    ),
];

/// The input stream of a pipeline text with `stages` appended.
fn with_stages(stages: &str) -> String {
    format!(
        "axes = \"A=8\"\ndtype = \"i32\"\nchip = \"1\"\ncluster = \"1\"\nslice = \"1\"\ntime = \"1\"\npacket = \"A\"\n{stages}"
    )
}

fn error(text: &str) -> String {
    match Pipeline::parse(text) {
        Ok(p) => panic!("accepted: {p:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn shipped_pipelines_read_and_run() {
    for (name, text) in SHIPPED {
        let p = Pipeline::parse(text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let n = p.input_positions().expect("positions");
        let (out, reports) = p
            .run((0..n as u64).collect())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(reports.len(), p.stages.len(), "{name}");
        assert!(!out.codes().is_empty(), "{name}");
    }
    let p = Pipeline::parse(DUMMY).expect("dummy");
    assert_eq!(p.dtype, DType::I32);
    assert_eq!(p.dims[4], "A % 8");
    assert_eq!(p.upstream_cycles_per_flit, 1);
    assert_eq!(
        p.stages[1],
        StageSpec::InterSliceReduce {
            op: "AddSat".into(),
            out_slice: "A / 8, 1 # 4".into(),
            out_time: "1".into(),
        }
    );
}

#[test]
fn unknown_keys_are_refused_with_the_known_ones() {
    let typo = DUMMY.replace(
        "time = \"1\"\npacket",
        "upstream_cycle_per_flit = 4\ntime = \"1\"\npacket",
    );
    assert_eq!(
        Pipeline::parse(&typo),
        Err(PipelineFileError::UnknownKey {
            at: "pipeline".into(),
            key: "upstream_cycle_per_flit".into(),
            known:
                "axes, dtype, chip, cluster, slice, time, packet, upstream_cycles_per_flit, stage"
                    .into(),
        })
    );
    let typo = DUMMY.replace("out_slice", "out_slices");
    assert_eq!(
        error(&typo),
        "stage 2 (inter_slice_reduce): unknown key `out_slices` (known keys: op, name, out_slice, out_time)"
    );
    let extra = with_stages(
        "[[stage]]\nop = \"vector_init\"\n[[stage]]\nop = \"vector_final\"\nname = \"x\"\n",
    );
    assert_eq!(
        error(&extra),
        "stage 2 (vector_final): unknown key `name` (known keys: op)"
    );
    let extra = with_stages(
        "[[stage]]\nop = \"cast\"\ndtype = \"i8\"\nout_packet = \"A # 32\"\nout_time = \"1\"\n",
    );
    assert_eq!(
        error(&extra),
        "stage 1 (cast): unknown key `out_time` (known keys: op, dtype, out_packet)"
    );
}

/// Every stage kind's report name is its `op` in a file, and every op enum's names read back.
#[test]
fn names_come_from_the_enums() {
    let stages = [
        ("cast", "dtype = \"i8\"\nout_packet = \"A # 32\"\n"),
        ("vector_init", ""),
        ("branch", ""),
        ("logic", "name = \"BitAnd\"\noperand = 1\n"),
        ("fxp", "name = \"AddFxp\"\noperand = 1\n"),
        ("fxp_to_fp", "int_width = 31\n"),
        ("fp", "name = \"AddF\"\noperand = 1.5\n"),
        ("narrow_split", "time2 = \"1\"\npacket2 = \"A\"\n"),
        ("fp_div", "operand = 2\n"),
        (
            "intra_slice_reduce",
            "axis = \"A\"\nname = \"Max\"\nout_time = \"1\"\nout_packet = \"1\"\n",
        ),
        ("widen_concat", "time2 = \"1\"\npacket2 = \"A\"\n"),
        ("widen_pad", "packet2 = \"A\"\n"),
        ("fp_to_fxp", "int_width = 0\n"),
        ("clip", "name = \"AddSat\"\noperand = -3\n"),
        (
            "inter_slice_reduce",
            "name = \"Add\"\nout_slice = \"1\"\nout_time = \"1\"\n",
        ),
        ("vector_final", ""),
    ];
    for (op, keys) in stages {
        let p = Pipeline::parse(&with_stages(&format!("[[stage]]\nop = \"{op}\"\n{keys}")))
            .unwrap_or_else(|e| panic!("{op}: {e}"));
        assert_eq!(p.stages[0].name(), op);
    }
    let unknown = error(&with_stages("[[stage]]\nop = \"reduce\"\n"));
    assert_eq!(
        unknown,
        "stage 1: unknown op `reduce` (one of cast, vector_init, branch, logic, fxp, fxp_to_fp, fp, narrow_split, fp_div, intra_slice_reduce, widen_concat, widen_pad, fp_to_fxp, clip, inter_slice_reduce, vector_final, narrow_trim, begin, begin_interleaved, fetch_chip_lift, fetch_cluster_lift, fetch_slice_lift, fetch, fetch_mask, fetch_table_lookup, fetch_cast, switch, collect, commit_trim, commit_cast, commit_cast_relu, commit_view, commit)"
    );
    for name in LogicBinaryOp::names() {
        assert_eq!(LogicBinaryOp::parse(name).map(|_| ()), Some(()), "{name}");
    }
    assert_eq!(FxpBinaryOp::names().len(), 10);
    assert_eq!(FpBinaryOp::names(), ["AddF", "SubF", "MulF"]);
    assert_eq!(ClipBinaryOp::names(), ["Add", "AddSat", "Max", "Min"]);
    assert_eq!(
        InterSliceReduceOpI32::names(),
        ["Add", "AddSat", "Max", "Min"]
    );
    assert_eq!(InterSliceReduceOpF32::names(), ["Add", "Max", "Min", "Mul"]);
    assert_eq!(IntraSliceReduceOpI32::names(), ["AddSat", "Max", "Min"]);
    assert_eq!(IntraSliceReduceOpF32::names(), ["Add", "Max", "Min"]);
    let bad = error(&with_stages(
        "[[stage]]\nop = \"fxp\"\nname = \"AddFx\"\noperand = 1\n",
    ));
    assert_eq!(
        bad,
        format!(
            "stage 1 (fxp): unknown name `AddFx` (one of {})",
            FxpBinaryOp::names().join(", ")
        )
    );
}

#[test]
fn errors_name_their_stage_and_key() {
    assert_eq!(
        error(&with_stages("[[stage]]\nop = \"logic\"\noperand = 1\n")),
        "stage 1 (logic): `name` is missing"
    );
    assert_eq!(
        error(&with_stages("[[stage]]\nname = \"x\"\n")),
        "stage 1: `op` is missing"
    );
    assert!(
        error(&with_stages(
            "[[stage]]\nop = \"fxp\"\nname = \"AddFxp\"\noperand = \"one\"\n"
        ))
        .starts_with("stage 1 (fxp): `operand`: invalid type: string \"one\""),
    );
    assert!(
        error(&with_stages(
            "[[stage]]\nop = \"fxp\"\nname = \"AddFxp\"\noperand = 5000000000\n"
        ))
        .starts_with("stage 1 (fxp): `operand`: invalid value: integer `5000000000`"),
    );
    assert_eq!(
        error(&with_stages(
            "[[stage]]\nop = \"fxp_to_fp\"\nint_width = 32\n"
        )),
        "stage 1 (fxp_to_fp): `int_width`: int_width 32 must be an integer in 0..=31"
    );
    assert_eq!(
        error(&DUMMY.replace(
            "time = \"1\"\npacket",
            "upstream_cycles_per_flit = 0\ntime = \"1\"\npacket"
        )),
        "pipeline: `upstream_cycles_per_flit`: upstream_cycles_per_flit must be an integer >= 1"
    );
    assert_eq!(
        error(&DUMMY.replace("dtype = \"i32\"", "dtype = \"i33\"")),
        "pipeline: `dtype`: unknown dtype `i33` (one of i4, f4e2m1, i8, i16, i32, f8e4m3, f8e5m2, f16, bf16, f32)"
    );
    assert_eq!(
        error(&DUMMY.replace("chip = \"1\"\n", "")),
        "pipeline: `chip` is missing"
    );
    assert!(error("axes = ").starts_with("not valid TOML: "));
}

/// What the hand parser accepted stays accepted: a mapping written as an integer, an i32
/// operand written as an integral float, a float operand written as an integer.
#[test]
fn numbers_read_as_the_field_asks() {
    let text = with_stages(
        "[[stage]]\nop = \"vector_init\"\n[[stage]]\nop = \"fxp\"\nname = \"AddFxp\"\noperand = 100.0\n[[stage]]\nop = \"vector_final\"\n",
    )
    .replace("chip = \"1\"", "chip = 1");
    let p = Pipeline::parse(&text).expect("parses");
    assert_eq!(p.dims[0], "1");
    assert_eq!(
        p.stages[1],
        StageSpec::Fxp {
            op: FxpBinaryOp::AddFxp,
            operand: 100
        }
    );
    assert!(
        error(&text.replace("100.0", "100.5"))
            .starts_with("stage 2 (fxp): `operand`: invalid type: floating point `100.5`")
    );
    let p =
        Pipeline::parse(&with_stages("[[stage]]\nop = \"fp_div\"\noperand = 4\n")).expect("fp_div");
    assert_eq!(p.stages[0], StageSpec::FpDiv { operand: 4.0 });
}
