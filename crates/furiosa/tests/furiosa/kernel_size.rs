//! Issue 25, part 1: the engines at the size of a real kernel (1 Mi cells). Each result is
//! checked against a plain computation written here over the logical coordinates (a per-cell
//! fold, a per-element [`CastProfile::convert`]) and against an FNV-1a hash of every output
//! code recorded from the per-cell implementation the flat-buffer one replaced, so a faster
//! path cannot change a result by one bit.

use npusim_furiosa::mapping::Axes;
use npusim_furiosa::{
    BranchMode, CastProfile, ClipBinaryOp, DType, FpBinaryOp, FxpBinaryOp, InterSliceReduceOpF32,
    InterSliceReduceOpI32, IntraSliceReduceOpF32, LogicBinaryOp, Mapping, StreamTensor,
};

fn ax(decl: &str) -> Axes {
    Axes::parse(decl).unwrap_or_else(|e| panic!("{e}"))
}

fn mp(axes: &Axes, text: &str) -> Mapping {
    Mapping::parse(text, axes).unwrap_or_else(|e| panic!("{e}"))
}

fn dims(axes: &Axes, d: [&str; 5]) -> [Mapping; 5] {
    d.map(|t| mp(axes, t))
}

/// splitmix64 of `i`: the test data's source of bits.
fn mix(i: usize) -> u64 {
    let mut z = (i as u64).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// i32 values spread over the whole range, so that wrapping and saturating sums differ.
fn int(i: usize) -> i32 {
    mix(i) as i32
}

/// f32 patterns of every class: normals of mixed magnitude (order-sensitive sums), and about
/// one in sixteen a special (NaN of either sign and payload, ±∞, ±0, subnormals, values just
/// below the fp8 and f16 ranges).
fn float_bits(i: usize) -> u32 {
    let h = mix(i);
    let bits = (h >> 32) as u32;
    match h & 0xf {
        0 => match (h >> 4) & 7 {
            0 => 0x7fc0_0000 | (bits & 0x803f_ffff),
            1 => 0x7f80_0001 | (bits & 0x0000_ffff),
            2 => 0x7f80_0000 | (bits & 0x8000_0000),
            3 => bits & 0x8000_0000,
            4 => bits & 0x807f_ffff,
            5 => (bits & 0x8000_0000) | (0x33 << 23) | (bits & 0x7f_ffff),
            6 => (bits & 0x8000_0000) | (0x38 << 23) | (bits & 0x7f_ffff),
            _ => (bits & 0x8000_0000) | (0x8e << 23) | (bits & 0x7f_ffff),
        },
        _ => {
            let scale = [1e8f32, 1.0, -1e8, 0.5, 3e-3, -7.0, 250.0, 1e-6][(h >> 4) as usize & 7];
            (scale * ((bits >> 8) as f32 / 16_777_216.0 + 0.25)).to_bits()
        }
    }
}

/// The codes of `t`, one per physical position.
fn codes(t: &StreamTensor) -> Vec<u64> {
    t.codes().to_u64()
}

/// FNV-1a over every code's 8 little-endian bytes, and the tensor's layout.
fn hash(t: &StreamTensor) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    let mut eat = |b: u8| {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    };
    for b in t.to_string().bytes() {
        eat(b);
    }
    for code in codes(t) {
        for b in code.to_le_bytes() {
            eat(b);
        }
    }
    h
}

/// Asserts that `t` hashes to `want`, naming `label` and the hash found.
fn expect_hash(label: &str, t: &StreamTensor, want: u64) {
    let got = hash(t);
    assert_eq!(got, want, "{label}: hash {got:#x}");
}

const REDUCE_AXES: &str = "R=256, T=512, P=8";
const REDUCE_DIMS: [&str; 5] = ["1", "1", "R", "T", "P"];

/// The case: 256 slices x 512 time steps x 8 lanes, reduced to `1 # 256` (wrapping
/// Add and saturating AddSat), against a plain per-lane fold over the slices in order.
#[test]
fn inter_slice_reduce_1mi_i32_is_the_per_lane_fold() {
    let axes = ax(REDUCE_AXES);
    let values: Vec<i32> = (0..1 << 20).map(int).collect();
    for (op, step, want_hash) in [
        (
            InterSliceReduceOpI32::Add,
            i32::wrapping_add as fn(i32, i32) -> i32,
            0x4dca_c096_7e5b_86eau64,
        ),
        (
            InterSliceReduceOpI32::AddSat,
            i32::saturating_add,
            0xf9ef_5e42_e1bf_5cba,
        ),
    ] {
        let input = StreamTensor::collect_i32(dims(&axes, REDUCE_DIMS), &values).expect("input");
        let out = input
            .vector_init()
            .and_then(|v| v.vector_inter_slice_reduce(&mp(&axes, "1 # 256"), &mp(&axes, "T"), op))
            .and_then(|v| v.vector_final())
            .expect("reduce");
        let got = out.ints();
        assert_eq!(got.len(), 1 << 20);
        for t in 0..512 {
            for p in 0..8 {
                let want = (0..256).fold(0i32, |acc, r| step(acc, values[(r * 512 + t) * 8 + p]));
                assert_eq!(got[t * 8 + p], i64::from(want), "{op:?} t {t} p {p}");
            }
        }
        // The 255 dummy slices hold the identity.
        assert!(got[4096..].iter().all(|&v| v == 0), "{op:?}: dummy slices");
        expect_hash(&format!("{op:?}"), &out, want_hash);
    }
}

/// The same reduce on f32 (Add is order-sensitive, Max skips NaN and orders −0 < +0), against
/// a plain fold over the slices in ascending order.
#[test]
fn inter_slice_reduce_1mi_f32_is_the_per_lane_fold() {
    let axes = ax(REDUCE_AXES);
    let values: Vec<f32> = (0..1 << 20)
        .map(|i| f32::from_bits(float_bits(i)))
        .collect();
    for (op, want_hash) in [
        (InterSliceReduceOpF32::Add, 0x303b_6957_f26e_5fe9u64),
        (InterSliceReduceOpF32::Max, 0xab38_8c7b_53ab_63b4),
    ] {
        let input = StreamTensor::collect_f32(dims(&axes, REDUCE_DIMS), &values).expect("input");
        let out = input
            .vector_init()
            .and_then(|v| v.vector_inter_slice_reduce(&mp(&axes, "1 # 256"), &mp(&axes, "T"), op))
            .and_then(|v| v.vector_final())
            .expect("reduce");
        let got = codes(&out);
        for t in 0..512 {
            for p in 0..8 {
                let xs = (0..256).map(|r| values[(r * 512 + t) * 8 + p]);
                let want = match op {
                    // A NaN sum keeps the accumulator's NaN over the element's, quieted.
                    InterSliceReduceOpF32::Add => xs.fold(0.0f32, |a, x| {
                        if a.is_nan() || x.is_nan() {
                            let nan = if a.is_nan() { a } else { x };
                            f32::from_bits(nan.to_bits() | 0x0040_0000)
                        } else {
                            a + x
                        }
                    }),
                    _ => xs.fold(f32::NEG_INFINITY, |a, x| {
                        if x.is_nan() {
                            a
                        } else if a == x {
                            if a.is_sign_positive() { a } else { x }
                        } else {
                            a.max(x)
                        }
                    }),
                };
                assert_eq!(
                    got[t * 8 + p],
                    u64::from(want.to_bits()),
                    "{op:?} t {t} p {p}"
                );
            }
        }
        expect_hash(&format!("{op:?}"), &out, want_hash);
    }
}

/// The other two output rules at 1 Mi cells: a Time factor promoted into OutSlice, and a
/// broadcast over a fresh axis; each against a per-lane fold over the logical coordinates.
#[test]
fn inter_slice_promotion_and_broadcast_1mi() {
    let axes = ax("R=256, U=256, T=2, P=8, X=256");
    let values: Vec<i32> = (0..1 << 20).map(int).collect();
    let fold = |u: usize, t: usize, p: usize| {
        (0..256).fold(0i32, |a, r| {
            a.saturating_add(values[((r * 256 + u) * 2 + t) * 8 + p])
        })
    };
    let input = || {
        StreamTensor::collect_i32(dims(&axes, ["1", "1", "R", "U, T", "P"]), &values)
            .expect("input")
            .vector_init()
            .expect("init")
    };
    let promoted = input()
        .vector_inter_slice_reduce(
            &mp(&axes, "U"),
            &mp(&axes, "T"),
            InterSliceReduceOpI32::AddSat,
        )
        .and_then(|v| v.vector_final())
        .expect("promotion");
    let got = promoted.ints();
    assert_eq!(got.len(), 256 * 2 * 8);
    for u in 0..256 {
        for t in 0..2 {
            for p in 0..8 {
                assert_eq!(got[(u * 2 + t) * 8 + p], i64::from(fold(u, t, p)), "u {u}");
            }
        }
    }
    let broadcast = input()
        .vector_inter_slice_reduce(
            &mp(&axes, "X"),
            &mp(&axes, "U, T"),
            InterSliceReduceOpI32::AddSat,
        )
        .and_then(|v| v.vector_final())
        .expect("broadcast");
    let got = broadcast.ints();
    assert_eq!(got.len(), 1 << 20);
    for x in [0, 1, 77, 255] {
        for u in 0..256 {
            for t in 0..2 {
                for p in 0..8 {
                    let pos = ((x * 256 + u) * 2 + t) * 8 + p;
                    assert_eq!(got[pos], i64::from(fold(u, t, p)), "x {x} u {u}");
                }
            }
        }
    }
    expect_hash("promotion", &promoted, 0x3f50_fe1c_49c0_abc2);
    expect_hash("broadcast", &broadcast, 0x7a65_2548_e259_5266);
}

/// The Cast Engine on 1 Mi cells (256 slices x 512 time steps x one 8-lane flit), every legal
/// pair, data of every class: each output cell is the per-element conversion of the same lane
/// (or 0 in the padding lanes).
#[test]
fn cast_engine_1mi_is_the_per_element_conversion() {
    let axes = ax("S=256, T=512, P=8");
    let d = dims(&axes, ["1", "1", "S", "T", "P"]);
    let floats: Vec<f32> = (0..1 << 20)
        .map(|i| f32::from_bits(float_bits(i)))
        .collect();
    let ints: Vec<i32> = (0..1 << 20).map(int).collect();
    let profile = CastProfile::default();
    for (dst, want_hash) in [
        (DType::BF16, 0x6c46_ad91_1e53_3795u64),
        (DType::F16, 0x79dd_291f_dcb4_f4cd),
        (DType::F8E4M3, 0x3b47_e4ba_efd8_9cc8),
        (DType::F8E5M2, 0x0595_a211_b994_585e),
        (DType::I16, 0xeaea_7729_7fea_a8d0),
        (DType::I8, 0x1640_9860_4d6d_96f7),
        (DType::I4, 0x58a8_44dd_d3dc_b9d8),
    ] {
        let (src, input) = if matches!(dst, DType::I4 | DType::I8 | DType::I16) {
            (DType::I32, StreamTensor::collect_i32(d.clone(), &ints))
        } else {
            (DType::F32, StreamTensor::collect_f32(d.clone(), &floats))
        };
        let input = input.expect("input");
        let lanes = dst.per_bytes(32);
        let out_packet = mp(&axes, &format!("P # {lanes}"));
        let out = input
            .cast_to(dst, &out_packet, &profile)
            .unwrap_or_else(|e| panic!("{dst}: {e}"));
        let got = codes(&out);
        assert_eq!(got.len(), (1 << 17) * lanes, "{dst}");
        let input_codes = codes(&input);
        for flit in 0..1 << 17 {
            for lane in 0..lanes {
                let want = if lane < 8 {
                    profile
                        .convert(input_codes[flit * 8 + lane], src, dst)
                        .expect("legal pair")
                } else {
                    0
                };
                assert_eq!(
                    got[flit * lanes + lane],
                    want,
                    "{dst} flit {flit} lane {lane}"
                );
            }
        }
        expect_hash(&format!("{dst}"), &out, want_hash);
    }
}

/// Every Vector Engine stage in one invocation on 1 Mi cells (256 slices x 128 x 4 time steps
/// x 8 lanes), ending in the inter-slice reducer; the output's hash was recorded from the
/// per-cell implementation.
#[test]
fn vector_engine_chain_1mi_keeps_its_hash() {
    let axes = ax("S=256, R=128, T=4, P=8");
    let values: Vec<i32> = (0..1 << 20).map(|i| int(i) >> 8).collect();
    let out = StreamTensor::collect_i32(dims(&axes, ["1", "1", "S", "R, T", "P"]), &values)
        .expect("input")
        .vector_init()
        .and_then(|t| t.vector_intra_slice_branch(BranchMode::Unconditional))
        .and_then(|t| t.vector_logic(LogicBinaryOp::BitXor, 0x5a5a))
        .and_then(|t| t.vector_fxp(FxpBinaryOp::AddFxpSat, 1 << 20))
        .and_then(|t| t.vector_fxp_to_fp(24))
        .and_then(|t| t.vector_narrow_split(&mp(&axes, "R, T, P / 4"), &mp(&axes, "P % 4")))
        .and_then(|t| t.vector_fp_binary(FpBinaryOp::MulF, 0.75))
        .and_then(|t| {
            t.vector_intra_slice_reduce(
                "R",
                &mp(&axes, "T, P / 4"),
                &mp(&axes, "P % 4"),
                IntraSliceReduceOpF32::Add,
            )
        })
        .and_then(|t| t.vector_fp_div(3.0))
        .and_then(|t| t.vector_widen_concat(&mp(&axes, "T"), &mp(&axes, "P")))
        .and_then(|t| t.vector_fp_to_fxp(28))
        .and_then(|t| t.vector_clip(ClipBinaryOp::Max, -(1 << 30)))
        .and_then(|t| {
            t.vector_inter_slice_reduce(
                &mp(&axes, "1 # 256"),
                &mp(&axes, "T"),
                InterSliceReduceOpI32::AddSat,
            )
        })
        .and_then(|t| t.vector_final())
        .expect("chain");
    assert_eq!(codes(&out).len(), 256 * 4 * 8);
    expect_hash("chain", &out, 0x4e91_e6ef_fd83_ac36);
}

/// The elementwise stages alone keep every cell (no reduction), 1 Mi cells in and out.
#[test]
fn vector_engine_elementwise_1mi_keeps_its_hash() {
    let axes = ax("S=256, T=512, P=8");
    let values: Vec<i32> = (0..1 << 20).map(int).collect();
    let out = StreamTensor::collect_i32(dims(&axes, ["1", "1", "S", "T", "P"]), &values)
        .expect("input")
        .vector_init()
        .and_then(|t| t.vector_intra_slice_branch(BranchMode::Unconditional))
        .and_then(|t| t.vector_fxp(FxpBinaryOp::MulFxp, 0x4000_0001))
        .and_then(|t| t.vector_fxp_to_fp(31))
        .and_then(|t| t.vector_narrow_split(&mp(&axes, "T, P / 4"), &mp(&axes, "P % 4")))
        .and_then(|t| t.vector_fp_binary(FpBinaryOp::AddF, 0.125))
        .and_then(|t| t.vector_fp_div(-1.5))
        .and_then(|t| t.vector_widen_concat(&mp(&axes, "T"), &mp(&axes, "P")))
        .and_then(|t| t.vector_fp_to_fxp(31))
        .and_then(|t| t.vector_clip(ClipBinaryOp::Min, 1 << 29))
        .and_then(|t| t.vector_final())
        .expect("chain");
    assert_eq!(codes(&out).len(), 1 << 20);
    expect_hash("elementwise", &out, 0x0048_3b2d_480a_b885);
}

/// A typed buffer must be in its type's word width and hold only codes of the type; each
/// refusal names the numbers.
#[test]
fn typed_buffers_are_checked() {
    use npusim_furiosa::Codes;
    use npusim_furiosa::tensor::Position;
    let axes = ax("T=2, P=8");
    let d = || dims(&axes, ["1", "1", "1", "T", "P"]);
    let e = StreamTensor::from_codes(DType::I32, Position::Collect, d(), Codes::U16(vec![0; 16]))
        .expect_err("16-bit words for i32");
    assert_eq!(
        e.to_string(),
        "the buffer holds 16-bit words but i32 codes are stored in 32-bit words"
    );
    let mut nibbles = vec![0u8; 16];
    nibbles[5] = 0x10;
    let e = StreamTensor::from_codes(DType::I4, Position::Collect, d(), Codes::U8(nibbles))
        .expect_err("0x10 is not an i4 code");
    assert_eq!(
        e.to_string(),
        "element 5 has code 0x10, which is not a i4 code"
    );
    let e = StreamTensor::from_codes(DType::I8, Position::Collect, d(), Codes::U8(vec![0; 15]))
        .expect_err("15 codes for 16 positions");
    assert!(e.to_string().contains("holds 15 elements but"), "{e}");
    let ok = StreamTensor::from_codes(DType::BF16, Position::Collect, d(), Codes::U16(vec![7; 16]))
        .expect("bf16 in 16-bit words");
    assert_eq!(ok.codes().get(15), Some(7));
}
