//! Spec §7.1 goldens G01–G12 and the worked examples of §1.9, verbatim.

use npusim_furiosa::mapping::{Axes, Cell, Final, Mapping, PaddingKind, ParseErrorKind};

fn ax(decl: &str) -> Axes {
    Axes::parse(decl).expect("axes")
}

fn m(axes: &Axes, text: &str) -> Mapping {
    match Mapping::parse(text, axes) {
        Ok(m) => m,
        Err(e) => panic!("{text}: {e}"),
    }
}

/// Finalised cells at `positions`, in the notation of the spec (`{}`, `{A: 1}`, `top`, `oob`).
fn at(e: &Mapping, positions: &[usize]) -> Vec<String> {
    positions
        .iter()
        .map(|&p| match e.cell(p) {
            Final::OutOfBounds => "oob".to_string(),
            c => c.to_string(),
        })
        .collect()
}

fn check(decl: &str, text: &str, size: usize, expect: &[(usize, &str)]) {
    let axes = ax(decl);
    let e = m(&axes, text);
    assert_eq!(e.size(), size, "{text}: size");
    let pos: Vec<usize> = expect.iter().map(|(p, _)| *p).collect();
    let want: Vec<&str> = expect.iter().map(|(_, c)| *c).collect();
    assert_eq!(at(&e, &pos), want, "{text}");
    // Printing and normalising keep the cells.
    let printed = m(&axes, &e.to_string());
    assert_eq!(printed, e, "{text}: printed as {e}");
    let normal = e.normalize();
    assert!(normal.equivalent(&e), "{text}: normal form {normal}");
    assert!(m(&axes, &normal.to_string()).equivalent(&e));
}

#[test]
fn g01_pair() {
    check(
        "A=8,B=512",
        "A, B",
        4096,
        &[
            (0, "{}"),
            (511, "{B: 511}"),
            (512, "{A: 1}"),
            (519, "{A: 1, B: 7}"),
            (4095, "{A: 7, B: 511}"),
            (4096, "oob"),
        ],
    );
}

#[test]
fn g02_padding() {
    check(
        "C=13,D=61",
        "C, D # 64",
        832,
        &[
            (0, "{}"),
            (60, "{D: 60}"),
            (61, "top"),
            (63, "top"),
            (64, "{C: 1}"),
            (831, "top"),
            (832, "oob"),
        ],
    );
}

#[test]
fn g03_split_digits() {
    check(
        "B=512",
        "B/64, B%32, B/32%2",
        512,
        &[
            (1, "{B: 32}"),
            (2, "{B: 1}"),
            (67, "{B: 97}"),
            (511, "{B: 511}"),
            (512, "oob"),
        ],
    );
    // General rule: p = 64i + 2j + k -> B = 64i + j + 32k.
    let axes = ax("B=512");
    let e = m(&axes, "B/64, B%32, B/32%2");
    for i in 0..8 {
        for j in 0..32 {
            for k in 0..2 {
                assert_eq!(
                    e.cell(64 * i + 2 * j + k),
                    Final::live(&[("B", 64 * i + j + 32 * k)])
                );
            }
        }
    }
}

#[test]
fn g04_padding_kinds_major_wins() {
    check(
        "A=3,B=3",
        "A #{0} 4, B #{!} 4",
        16,
        &[
            (2, "{B: 2}"),
            (3, "bottom"),
            (4, "{A: 1}"),
            (12, "zero"),
            (13, "zero"),
            (15, "zero"),
            (16, "oob"),
        ],
    );
}

#[test]
fn g05_padded_split_overshoots() {
    let axes = ax("B=56");
    let e1 = m(&axes, "B # 64");
    assert_eq!(
        at(&e1, &[55, 56, 62, 63, 64]),
        ["{B: 55}", "top", "top", "top", "oob"]
    );
    let e2 = m(&axes, "B # 64 / 32, B # 64 % 32");
    let raw: Vec<Cell> = [55, 56, 62, 63].iter().map(|&p| e2.map(p)).collect();
    for (cell, b) in raw.iter().zip([55, 56, 62, 63]) {
        match cell {
            Cell::Index(ix) => assert_eq!(ix.values().sum::<usize>(), b),
            other => panic!("raw cell {other:?}"),
        }
    }
    assert_eq!(e2.map(64), Cell::OutOfBounds);
    // After finalize, 56..63 are dead.
    assert_eq!(
        at(&e2, &[55, 56, 62, 63, 64]),
        ["{B: 55}", "top", "top", "top", "oob"]
    );
    assert!(e1.equivalent(&e2));
}

#[test]
fn g06_resize() {
    check(
        "C=2,D=3",
        "C, D = 2",
        4,
        &[
            (0, "{}"),
            (1, "{D: 1}"),
            (2, "{C: 1}"),
            (3, "{C: 1, D: 1}"),
            (4, "oob"),
        ],
    );
    check(
        "A=8,B=512",
        "A, B = 2 # 512",
        4096,
        &[
            (1, "{B: 1}"),
            (2, "top"),
            (512, "{A: 1}"),
            (513, "{A: 1, B: 1}"),
            (514, "top"),
        ],
    );
}

#[test]
fn g07_broadcast() {
    check("A=3", "1", 1, &[(0, "{}"), (1, "oob")]);
    check(
        "A=3",
        "4",
        4,
        &[(0, "{}"), (1, "{}"), (2, "{}"), (3, "{}"), (4, "oob")],
    );
    check("A=3", "4, A", 12, &[(5, "{A: 2}")]);
}

#[test]
fn g08_composite_stride_modulo_and_escaped_numbers() {
    check("A=8,B=512", "[A,B] / 512", 8, &[(3, "{A: 3}")]);
    check("A=8,B=512", "[A,B] % 512", 512, &[(5, "{B: 5}")]);
    check("A=8,B=512", "A % 1", 1, &[(0, "{}")]);
    let axes = ax("A=8,B=512");
    assert!(m(&axes, "A / 1").equivalent(&m(&axes, "A")));
    check("A=8,B=512", "A / {8}", 1, &[(0, "{}"), (1, "oob")]);
    check("A=8,B=512", "B / {8}", 64, &[(1, "{B: 8}")]);
    assert!(m(&axes, "[A,B] / 512").equivalent(&m(&axes, "A")));
    assert!(m(&axes, "[A,B] % 512").equivalent(&m(&axes, "B")));
    assert!(m(&axes, "A % 1").equivalent(&m(&axes, "1")));
}

#[test]
fn g09_digit_swap() {
    check(
        "A=15",
        "A % 5, A / 5",
        15,
        &[
            (1, "{A: 5}"),
            (2, "{A: 10}"),
            (3, "{A: 1}"),
            (14, "{A: 14}"),
        ],
    );
}

#[test]
fn g10_slice_time_packet_digits() {
    let axes = ax("R=13");
    let slice = m(&axes, "R # 32 / 8 # 256");
    let time = m(&axes, "R # 32 / 4 % 2");
    let packet = m(&axes, "R # 32 % 4 # 8");
    assert_eq!(at(&slice, &[0, 1, 2, 255]), ["{}", "{R: 8}", "top", "top"]);
    assert_eq!(at(&time, &[1]), ["{R: 4}"]);
    assert_eq!(at(&packet, &[3, 4, 7]), ["{R: 3}", "top", "top"]);
    let combined = |s: usize, t: usize, p: usize| {
        slice
            .map(s)
            .combine(time.map(t))
            .combine(packet.map(p))
            .finalize()
    };
    assert_eq!(combined(1, 1, 1), Final::Padding(PaddingKind::Top));
    assert_eq!(combined(1, 0, 0), Final::live(&[("R", 8)]));
}

#[test]
fn g11_nchw_trace() {
    let axes = ax("N=4,C=64,H=32,W=32");
    // Position of the element (N1, C17, H3, W5) under each mapping.
    let find = |text: &str, want: &[(&str, usize)]| {
        let e = m(&axes, text);
        let want = Final::live(want);
        (0..e.size()).find(|&p| e.cell(p) == want)
    };
    assert_eq!(find("N", &[("N", 1)]), Some(1));
    assert_eq!(
        find("C, H, W", &[("C", 17), ("H", 3), ("W", 5)]),
        Some(17509)
    );
    assert_eq!(find("C / 2", &[("C", 16)]), Some(8));
    assert_eq!(
        find("N, H, W, C % 2", &[("N", 1), ("H", 3), ("W", 5), ("C", 1)]),
        Some(2251)
    );
    assert_eq!(find("N, H, W", &[("N", 1), ("H", 3), ("W", 5)]), Some(1125));
    assert_eq!(find("C % 2", &[("C", 1)]), Some(1));
}

#[test]
fn g12_index_assignments_trailing_comma_and_rejections() {
    let axes = ax("A=8,B=512");
    // i![B / 64: 2] == {B: 128}; i![B / 64: 2, B % 64: 2] == {B: 130}
    let b64 = m(&axes, "B / 64");
    let b_mod = m(&axes, "B % 64");
    assert_eq!(
        Cell::empty().combine(b64.map(2)).finalize(),
        Final::live(&[("B", 128)])
    );
    assert_eq!(
        Cell::empty()
            .combine(b64.map(2))
            .combine(b_mod.map(2))
            .finalize(),
        Final::live(&[("B", 130)])
    );
    assert_eq!(m(&axes, "A # { 8 }"), m(&axes, "A # 8"));
    assert_eq!(m(&axes, "A,B,"), m(&axes, "A,B"));
    for bad in [",", "A,,B", ",A", ""] {
        let e = Mapping::parse(bad, &axes).expect_err(bad);
        assert!(matches!(e.kind, ParseErrorKind::Syntax(_)), "{bad}: {e}");
    }
}

/// The worked examples of spec §1.9 not already covered by the goldens.
#[test]
fn worked_examples_1_9() {
    check("A=4", "A", 4, &[(0, "{}"), (3, "{A: 3}"), (4, "oob")]);
    check("B=512", "B/64, B%64", 4096 / 8, &[(130, "{B: 130}")]);
    check(
        "B=512",
        "B/64",
        8,
        &[(2, "{B: 128}"), (7, "{B: 448}"), (8, "oob")],
    );
    check("B=512", "B%64", 64, &[(63, "{B: 63}"), (64, "oob")]);
    check(
        "A=15",
        "A % 5, A / 5",
        15,
        &[(1, "{A: 5}"), (3, "{A: 1}"), (14, "{A: 14}")],
    );
}

#[test]
fn errors_point_at_the_column() {
    let axes = ax("A=8,B=512");
    let cases: [(&str, usize, &str); 7] = [
        ("A / 3", 3, "stride 3 does not divide"),
        ("A, B % 7", 6, "modulo 7 does not divide"),
        ("A = 9", 3, "resize 9 is larger"),
        ("B # 500", 3, "padding 500 is smaller"),
        ("A, Q", 4, "unknown axis `Q`"),
        ("A, (B", 6, "expected `)`"),
        ("A $ B", 3, "unexpected character"),
    ];
    for (text, column, needle) in cases {
        let e = Mapping::parse(text, &axes).expect_err(text);
        assert_eq!(e.column, column, "{text}: {e}");
        assert!(e.to_string().contains(needle), "{text}: {e}");
    }
    let e = Mapping::parse("A / 3", &axes).expect_err("stride");
    assert_eq!(
        e.to_string(),
        "column 3: `A / 3`: stride 3 does not divide the size 8 of `A` (rule: a stride must divide its inner size)\n  A / 3\n    ^"
    );
}

#[test]
fn normal_forms_read_well() {
    let axes = ax("A=8,B=512");
    let cases = [
        ("B / 64, B % 64", "B"),
        ("[A, B] / 512", "A"),
        ("[A, B] % 512", "B"),
        ("1, A, 1", "A"),
        ("A / 1", "A"),
        ("A # 8", "A"),
        ("(A # 16) # 32", "A # 32"),
        ("A = 8", "A"),
        ("A % 1", "1"),
        ("[A, B] / 8", "(A, B / 8)"),
        ("2, 4", "8"),
    ];
    for (text, want) in cases {
        assert_eq!(m(&axes, text).normalize().to_string(), want, "{text}");
    }
}
