//! The Fetch Adapter's mask and table lookup (`docs/furiosa-engines.md` §4.2–§4.4): F12, the
//! mask decision of §4.3, and the numeric goldens of §4.3's "numerics" decision for the
//! widening and f32 → bf16 legs of `fetch_cast`. Expected codes are worked by hand from the
//! formats (f4e2m1: 1 sign, 2 exponent bits bias 1, 1 mantissa bit; f8e4m3: bias 7).

use npusim_furiosa::dm::SliceId;
use npusim_furiosa::dtype::F8E4M3;
use npusim_furiosa::engine::fetch::{FetchError, begin};
use npusim_furiosa::engine::fetch_cast::fetch_cast_code;
use npusim_furiosa::engine::fetch_table_lookup::table_lookup_code;
use npusim_furiosa::{DType, Position};

use crate::fetch::Setup;

const SLICE0: SliceId = SliceId {
    chip: 0,
    cluster: 0,
    slice: 0,
};

/// F12: f4e2m1 bytes `0x10, 0xF8` in DM (low nibble first) are the codes 0x0, 0x1, 0x8, 0xF
/// = +0, 0.5, −0, −6, looked up as f8e4m3 `0x00, 0x30, 0x80, 0xCC`.
#[test]
fn f12_f4e2m1_bytes_look_up_as_f8e4m3() {
    let mut s = Setup::new("X=64");
    let x = s.place(DType::F4E2M1, "X", 0);
    x.write_logical(&mut s.dm, &["X"], &[0; 64]).expect("zero");
    s.dm.write_byte(SLICE0, 0, 0x10).expect("byte 0");
    s.dm.write_byte(SLICE0, 1, 0xF8).expect("byte 1");
    let f = begin(&s.dm, &x.view())
        .fetch(&s.m("1"), &s.m("X"))
        .expect("fetch")
        .fetch_table_lookup::<F8E4M3>()
        .expect("lookup");
    assert_eq!(
        (f.position(), f.dtype()),
        (Position::FetchTableLookup, DType::F8E4M3)
    );
    let codes = f.codes().to_u64();
    assert_eq!(codes[..4], [0x00, 0x30, 0x80, 0xCC]);
    assert!(codes[4..].iter().all(|&c| c == 0));
    // 64 one-byte elements: two flits at Collect.
    let c = f.collect(&s.m("X / 32"), &s.m("X % 32")).expect("collect");
    assert_eq!(c.time().size(), 2);
}

/// F12's other tables, each value worked from the formats.
#[test]
fn f12_tables() {
    let t = |code, src, dst| table_lookup_code(code, src, dst);
    // f4e2m1 → f8e5m2 (bias 15, 2 mantissa bits): 0.5 = 2^-1 → 0x38; 6 = 1.5·2^2 → 0x46;
    // 3 = 1.5·2^1 (code 0x5) → 0x42; −1 (code 0xA) → 0xBC.
    assert_eq!(t(0x1, DType::F4E2M1, DType::F8E5M2), 0x38);
    assert_eq!(t(0x7, DType::F4E2M1, DType::F8E5M2), 0x46);
    assert_eq!(t(0x5, DType::F4E2M1, DType::F8E5M2), 0x42);
    assert_eq!(t(0xA, DType::F4E2M1, DType::F8E5M2), 0xBC);
    // f8e4m3 0x38 = 1.0 → bf16 0x3F80; 0x7E = 448 → 0x43E0; 0x01 = 2^-9 (subnormal) →
    // bf16 exponent 127 − 9 = 118 → 0x3B00; NaN 0x7F → 0x7FC0.
    assert_eq!(t(0x38, DType::F8E4M3, DType::BF16), 0x3F80);
    assert_eq!(t(0x7E, DType::F8E4M3, DType::BF16), 0x43E0);
    assert_eq!(t(0x01, DType::F8E4M3, DType::BF16), 0x3B00);
    assert_eq!(t(0x7F, DType::F8E4M3, DType::BF16), 0x7FC0);
    // f8e5m2 0x3C = 1.0 → 0x3F80; 0x7C = +inf → 0x7F80; 0xFB = −57344 → 0xC760.
    assert_eq!(t(0x3C, DType::F8E5M2, DType::BF16), 0x3F80);
    assert_eq!(t(0x7C, DType::F8E5M2, DType::BF16), 0x7F80);
    assert_eq!(t(0xFB, DType::F8E5M2, DType::BF16), 0xC760);
}

#[test]
fn table_lookup_refuses_a_pair_and_a_position() {
    let mut s = Setup::new("X=32");
    let x = s.place(DType::F8E4M3, "X", 0);
    x.write_logical(&mut s.dm, &["X"], &[0; 32]).expect("load");
    let f = begin(&s.dm, &x.view())
        .fetch(&s.m("1"), &s.m("X"))
        .expect("fetch");
    let e = f.clone().fetch_table_lookup_to(DType::F32).unwrap_err();
    assert!(matches!(e, FetchError::LookupPair { .. }), "{e}");
    assert!(
        e.to_string()
            .contains("no table from f8e4m3 to f32 (rule: f4e2m1 -> f8e4m3, f8e5m2"),
        "{e}"
    );
    // A lookup after a cast: FetchCastTensor goes on with switch or collect only.
    let c = f.clone().fetch_cast_to(DType::F32).expect("cast");
    let e = c.fetch_table_lookup_to(DType::BF16).unwrap_err();
    assert!(e.to_string().contains("FetchCastTensor"), "{e}");
    // A lookup then a cast is the adapter's order.
    let l = f.fetch_table_lookup_to(DType::BF16).expect("lookup");
    let c = l.fetch_cast_to(DType::F32).expect("cast after lookup");
    assert_eq!(c.position(), Position::FetchCast);
}

/// The mask (decision §4.3): Top padding of Time and Packet becomes Zero, the data are the
/// fetch's (dead cells 0), and the adapter's order holds (mask, lookup, cast).
#[test]
fn fetch_mask_relabels_top_padding_as_zero() {
    let mut s = Setup::new("A=3, B=4");
    let x = s.place(DType::I8, "A, B # 8", 0);
    x.write_logical(&mut s.dm, &["A", "B"], &(1..=12).collect::<Vec<u64>>())
        .expect("load");
    let f = begin(&s.dm, &x.view())
        .fetch(&s.m("A # 4"), &s.m("B # 8"))
        .expect("fetch");
    let m = f.clone().fetch_mask().expect("mask");
    assert_eq!(m.position(), Position::FetchMask);
    assert_eq!(m.time().m_notation(), "A #{0} 4");
    assert_eq!(m.packet().m_notation(), "B #{0} 8");
    assert_eq!(m.codes(), f.codes());
    let ints = m.ints();
    assert_eq!(ints[..8], [1, 2, 3, 4, 0, 0, 0, 0]);
    assert!(ints[24..].iter().all(|&v| v == 0), "time step 3 is padding");
    let e = m.clone().fetch_mask().unwrap_err();
    assert!(e.to_string().contains("FetchMaskTensor"), "{e}");
    let c = m.fetch_cast_to(DType::I32).expect("cast after mask");
    assert_eq!(c.packet().m_notation(), "B #{0} 8");
}

/// §4.3 "numerics": the widening legs sign-extend, bf16 → f32 keeps the bits (NaN →
/// 0x7fc00000, subnormal → signed zero), f8 → f32 decodes exactly, f32 → bf16 rounds to
/// nearest even (NaN → 0x7fc0, subnormal → signed zero, overflow → ∞).
#[test]
fn fetch_cast_numeric_goldens() {
    let c = |code, src, dst| fetch_cast_code(code, src, dst);
    assert_eq!(c(0x80, DType::I8, DType::I32), 0xFFFF_FF80);
    assert_eq!(c(0x7F, DType::I8, DType::I32), 0x7F);
    assert_eq!(c(0x8000, DType::I16, DType::I32), 0xFFFF_8000);
    assert_eq!(c(0x7FFF, DType::I16, DType::I32), 0x7FFF);
    assert_eq!(c(0xFF80, DType::BF16, DType::F32), 0xFF80_0000, "−inf");
    assert_eq!(c(0xC0A0, DType::BF16, DType::F32), 0xC0A0_0000, "−5.0");
    assert_eq!(c(0xFFC1, DType::BF16, DType::F32), 0x7FC0_0000, "NaN");
    // f8e4m3 0x01 = 2^-9 → f32 exponent 118: 0x3B000000; 0xFE = −448 → 0xC3E00000.
    assert_eq!(c(0x01, DType::F8E4M3, DType::F32), 0x3B00_0000);
    assert_eq!(c(0xFE, DType::F8E4M3, DType::F32), 0xC3E0_0000);
    assert_eq!(c(0x7F, DType::F8E4M3, DType::F32), 0x7FC0_0000);
    // f8e5m2 0x7C = +inf, 0x01 = 2^-16.
    assert_eq!(c(0x7C, DType::F8E5M2, DType::F32), 0x7F80_0000);
    assert_eq!(c(0x01, DType::F8E5M2, DType::F32), 0x3780_0000);
    // f32 → bf16: 1 + 3·2^-8 is halfway between 0x3F81 and 0x3F82: even → 0x3F82;
    // 1 + 2^-8 + 2^-20 is above halfway → 0x3F81; −1e-40 (subnormal) → 0x8000; NaN → 0x7FC0;
    // 3.4e38 rounds past the largest bf16 → 0x7F80.
    let f = |x: f32| c(x.to_bits() as u64, DType::F32, DType::BF16);
    assert_eq!(f(1.0 + 3.0 * 2f32.powi(-8)), 0x3F82);
    assert_eq!(f(1.0 + 2f32.powi(-8) + 2f32.powi(-20)), 0x3F81);
    assert_eq!(f(-1e-40), 0x8000);
    assert_eq!(c(0xFFC0_0001, DType::F32, DType::BF16), 0x7FC0);
    assert_eq!(f(3.4e38), 0x7F80);
}
