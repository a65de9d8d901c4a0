//! The status that travels with every result agrees with the result itself: for every code of
//! every format of at most 16 bits, into every destination, under every deterministic mode and
//! the three standard policies (a 16-bit source under one mode per destination in turn by
//! default, every mode when the full sweeps run: `crate::sweep`), each flag is checked against
//! what decoding the input and the output says happened (NaN, Inf, exactness, flush to zero,
//! saturation).

use npusim_numerics::{CastPolicy, Exact, Format, RoundMode, Status, convert_with_status};

use crate::sweep::full_sweeps;

/// A finite value in lowest terms, for exact comparison (zeros of either sign are equal).
fn canonical(x: &Exact) -> Option<(bool, u64, i32)> {
    match *x {
        Exact::Finite { sig: 0, .. } => Some((false, 0, 0)),
        Exact::Finite { negative, sig, exp } => {
            let tz = sig.trailing_zeros();
            Some((negative, sig >> tz, exp + tz as i32))
        }
        _ => None,
    }
}

fn check(src: Format, code: u64, dst: Format, policy: &CastPolicy) {
    let r = convert_with_status(code, src, dst, policy, 0);
    let input = src.decode(code);
    let output = dst.decode(r.code);
    let s = r.status;
    let ctx = || format!("{src} {code:#x} -> {dst} ({policy:?}): {:#x} {s}", r.code);
    assert_eq!(
        s.contains(Status::NAN),
        output.is_nan(),
        "NAN flag: {}",
        ctx()
    );
    assert_eq!(
        s.contains(Status::INF),
        output.is_inf(),
        "INF flag: {}",
        ctx()
    );
    if src == dst {
        return;
    }
    match (canonical(&input), canonical(&output)) {
        (Some(a), Some(b)) => {
            assert_eq!(
                s.contains(Status::INEXACT),
                a != b,
                "INEXACT flag: {}",
                ctx()
            );
            // (a value that overflows an integer and becomes 0 by wrapping or clamping was not
            // flushed)
            let flushed = a.1 != 0 && b.1 == 0 && !s.contains(Status::OVERFLOW);
            assert_eq!(
                s.contains(Status::FLUSHED_TO_ZERO),
                flushed,
                "FLUSHED: {}",
                ctx()
            );
        }
        _ => {
            if input.is_nan() && !output.is_nan() {
                assert!(s.contains(Status::INVALID), "NaN lost: {}", ctx());
            }
            if input.is_inf() && !output.is_inf() && !output.is_nan() {
                assert!(s.contains(Status::SATURATED), "Inf clamped: {}", ctx());
            }
        }
    }
    if s.contains(Status::SATURATED) {
        let extreme = r.code == dst.max_code() || r.code == dst.min_code();
        assert!(extreme, "SATURATED on a non-extreme code: {}", ctx());
    }
    if s.contains(Status::OVERFLOW) {
        assert!(
            s.contains(Status::INEXACT),
            "OVERFLOW without INEXACT: {}",
            ctx()
        );
    }
}

#[test]
fn every_flag_agrees_with_the_decoded_input_and_output() {
    let mut checked = 0u64;
    let policies = |m| {
        [
            CastPolicy::new(m),
            CastPolicy::saturating(m),
            CastPolicy::non_saturating(m),
        ]
    };
    let full = full_sweeps();
    let mut turn = 0;
    for src in Format::ALL.into_iter().filter(|f| f.bits() <= 16) {
        for dst in Format::ALL {
            // the 16-bit sources (65536 codes each) under one mode per destination in turn, so
            // that every mode meets every source; every mode in the full sweep
            turn += 1;
            let modes: Vec<RoundMode> = if full || src.bits() < 16 {
                RoundMode::DETERMINISTIC.to_vec()
            } else {
                vec![RoundMode::DETERMINISTIC[turn % RoundMode::DETERMINISTIC.len()]]
            };
            for mode in modes {
                for policy in policies(mode) {
                    for code in 0..=src.code_mask() {
                        check(src, code, dst, &policy);
                        checked += 1;
                    }
                }
            }
        }
    }
    eprintln!("{checked} conversions checked");
    assert!(checked > 10_000_000);
}
