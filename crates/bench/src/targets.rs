//! The speed targets of the bulk casts, checked against the rows of one benchmark run:
//! every target is a ratio between two figures measured in the same process (a cast against
//! memcpy or the `half` crate, one mode or policy against another), so that a machine's speed
//! and load cancel out. Two cases (a mode against rint, packed against unpacked) are compared
//! by a [`Pair`] measurement, their samples taken in turn and the median of the samples'
//! ratios kept: two rows measured seconds apart differ by more than the 5–10 % these targets
//! allow on a shared machine (the same binary gave saturating e5m2 −15 % to +18 % against
//! IEEE from the rows of three runs). A target whose rows were not measured (`--case`) is
//! left out.

use std::io::{self, Write};

use crate::cases::{Pair, Row};

/// One checked target: what it asks, what was measured, and whether that meets it.
pub(crate) struct Verdict {
    /// The target, e.g. `f32->bf16 rint, 64Mi, all threads: ≥ 100 % of memcpy`.
    pub(crate) target: String,
    /// The measured figure, e.g. `121.3 %`.
    pub(crate) measured: String,
    /// Whether the figure meets the target.
    pub(crate) met: bool,
}

/// The f32 destinations that must reach memcpy speed on the large size.
const AT_MEMCPY: [&str; 5] = [
    "f32->f16 rint",
    "f32->bf16 rint",
    "f32->f8e4m3fn rint sat",
    "f32->f8e5m2 rint",
    "f32->i8 rint",
];

/// Sources of more than 16 bits besides f32 (no throughput target of their own).
const WIDE_SOURCES: [&str; 2] = ["f64", "i32"];

/// The largest slowdown of masked or 1 %-special data against plain data: at most 1.5x the
/// time, i.e. at least 2/3 of the speed.
const SPECIAL_SLOWDOWN: f64 = 1.0 - 1.0 / 1.5;

/// Pairs (slower-allowed case, base case, largest slowdown) for the mode, policy and
/// special-value targets.
const SLOWDOWNS: [(&str, &str, f64); 15] = [
    ("f32->f16 trunc", "f32->f16 rint", 0.10),
    ("f32->bf16 floor", "f32->bf16 rint", 0.10),
    ("f32->f8e4m3fn odd sat", "f32->f8e4m3fn rint sat", 0.10),
    ("f32->f16 rint sat", "f32->f16 rint", 0.05),
    ("f32->f8e5m2 rint sat", "f32->f8e5m2 rint", 0.05),
    ("f32->f16 rint masked", "f32->f16 rint", SPECIAL_SLOWDOWN),
    ("f32->bf16 rint masked", "f32->bf16 rint", SPECIAL_SLOWDOWN),
    (
        "f32->f8e4m3fn rint sat masked",
        "f32->f8e4m3fn rint sat",
        SPECIAL_SLOWDOWN,
    ),
    (
        "f32->f8e5m2 rint masked",
        "f32->f8e5m2 rint",
        SPECIAL_SLOWDOWN,
    ),
    ("f32->i8 rint masked", "f32->i8 rint", SPECIAL_SLOWDOWN),
    ("f32->f16 rint nan1%", "f32->f16 rint", SPECIAL_SLOWDOWN),
    ("f32->bf16 rint nan1%", "f32->bf16 rint", SPECIAL_SLOWDOWN),
    (
        "f32->f8e4m3fn rint sat nan1%",
        "f32->f8e4m3fn rint sat",
        SPECIAL_SLOWDOWN,
    ),
    (
        "f32->f8e5m2 rint nan1%",
        "f32->f8e5m2 rint",
        SPECIAL_SLOWDOWN,
    ),
    ("f32->i8 rint nan1%", "f32->i8 rint", SPECIAL_SLOWDOWN),
];

/// Pairs (packed case, unpacked case) for the packing target.
const PACKED: [(&str, &str); 2] = [
    ("f32->f4e2m1 rint", "f32->f4e2m1 rint unpacked"),
    ("f32->i4 rint", "f32->i4 rint unpacked"),
];

/// Whether a measurement of `elements` on `threads` thread(s) is the size a target names:
/// the large size on all threads (`big`), or 1 Mi elements on one thread.
fn at_size(elements: usize, threads: usize, big: bool) -> bool {
    if big {
        elements > 1 << 20
    } else {
        elements == 1 << 20 && threads == 1
    }
}

fn find<'a>(rows: &'a [Row], case: &str, big: bool) -> Option<&'a Row> {
    rows.iter()
        .find(|r| r.case == case && at_size(r.elements, r.threads, big))
}

/// How far the large row `big` could get if every thread cast as fast as one thread casts the
/// cache-sized `small` row of the same case, as a percentage of the large size's memcpy: the
/// kernel's arithmetic as a ceiling, measured in the same run.
fn cached_ceiling(big: &Row, small: &Row) -> f64 {
    let per_thread = small.gelem[1] / small.threads.max(1) as f64;
    big.pct_memcpy * per_thread * big.threads as f64 / big.gelem[1]
}

/// The verdict on row `r` against `at_least` % of memcpy, with the same run's floor, the
/// buffer alone and, given the case's 1 Mi one-thread row `small`, its [`cached_ceiling`].
fn pct(target: String, r: &Row, at_least: f64, small: Option<&Row>) -> Verdict {
    let mut measured = format!("{:.1} % (floor {:.1} %", r.pct_memcpy, r.floor_pct_memcpy);
    if let Some(a) = &r.alone {
        measured += &format!(", {} alone {:.1} %", a.side, a.pct_memcpy);
    }
    if let Some(s) = small.filter(|s| s.gelem[1] > 0.0 && r.gelem[1] > 0.0) {
        measured += &format!(", cached × {} {:.1} %", r.threads, cached_ceiling(r, s));
    }
    measured += ")";
    Verdict {
        target,
        measured,
        met: r.pct_memcpy >= at_least,
    }
}

/// The (case, base) pairs that the mode, policy and packing targets compare, each to be
/// measured as a [`Pair`].
pub(crate) fn compared() -> Vec<(&'static str, &'static str)> {
    let slow = SLOWDOWNS.iter().map(|&(case, base, _)| (case, base));
    slow.chain(PACKED).collect()
}

fn find_pair<'a>(pairs: &'a [Pair], case: &str, base: &str, big: bool) -> Option<&'a Pair> {
    pairs
        .iter()
        .find(|p| p.case == case && p.base == base && at_size(p.elements, p.threads, big))
}

/// `elements`, on `threads` thread(s), as the targets name a size.
fn size_of(elements: usize, threads: usize) -> String {
    format!("{}, {threads} thread(s)", crate::cases::human(elements))
}

/// The share of a same-run memcpy (in percent) that `case` must reach on the large size, if
/// it has such a target.
pub(crate) fn memcpy_target(case: &str) -> Option<f64> {
    let (src, _) = case.split_once("->").unwrap_or((case, ""));
    if AT_MEMCPY.contains(&case) {
        Some(100.0)
    } else if src == "f32" {
        Some(50.0)
    } else if case.ends_with("->f32 rint") && !WIDE_SOURCES.contains(&src) {
        Some(100.0)
    } else {
        None
    }
}

/// Every target the rows and pairs can check, in the order.
pub(crate) fn check(rows: &[Row], pairs: &[Pair]) -> Vec<Verdict> {
    let mut out = Vec::new();
    let size = |r: &Row| size_of(r.elements, r.threads);
    for r in rows.iter().filter(|r| at_size(r.elements, r.threads, true)) {
        let Some(at_least) = memcpy_target(&r.case) else {
            continue;
        };
        let t = format!("{} {}: ≥ {at_least:.0} % of memcpy", r.case, size(r));
        out.push(pct(t, r, at_least, find(rows, &r.case, false)));
    }
    for (case, at_least) in [
        ("f32->f16 rint", 1.0),
        ("f16->f32 rint", 1.0),
        ("f32->bf16 rint", 2.0),
    ] {
        if let Some(r) = find(rows, case, false)
            && let Some(x) = r.x_half
        {
            out.push(Verdict {
                target: format!("{case} {}: ≥ {at_least:.1}× half", size(r)),
                measured: format!("{x:.2}×"),
                met: x >= at_least,
            });
        }
    }
    for r in rows
        .iter()
        .filter(|r| at_size(r.elements, r.threads, false))
    {
        let fp8_or_i8 = ["->f8e4m3fn ", "->f8e5m2 ", "->i8 "]
            .iter()
            .any(|d| r.case.contains(d));
        if r.case.starts_with("f32->") && fp8_or_i8 {
            let t = format!("{} {}: ≥ 50 % of memcpy", r.case, size(r));
            out.push(pct(t, r, 50.0, None));
        }
    }
    for (case, base, most) in SLOWDOWNS {
        for big in [false, true] {
            if let Some(p) = find_pair(pairs, case, base, big) {
                let slower = 1.0 - p.speed_ratio;
                out.push(Verdict {
                    target: format!(
                        "{case} vs {base} {}: ≤ {:.0} % slower",
                        size_of(p.elements, p.threads),
                        100.0 * most
                    ),
                    measured: format!("{:+.1} %", 100.0 * slower),
                    met: slower <= most,
                });
            }
        }
    }
    for (packed, unpacked) in PACKED {
        for big in [false, true] {
            if let Some(p) = find_pair(pairs, packed, unpacked, big) {
                out.push(Verdict {
                    target: format!(
                        "{packed} {}: ≥ 80 % of unpacked elements/s",
                        size_of(p.elements, p.threads)
                    ),
                    measured: format!("{:.1} %", 100.0 * p.speed_ratio),
                    met: p.speed_ratio >= 0.8,
                });
            }
        }
    }
    out
}

/// Prints the verdicts as a table, with how many were met.
pub(crate) fn print(out: &mut dyn Write, verdicts: &[Verdict]) -> io::Result<()> {
    if verdicts.is_empty() {
        return Ok(());
    }
    let width = verdicts
        .iter()
        .map(|v| v.target.chars().count())
        .max()
        .unwrap_or(0);
    let measured = verdicts
        .iter()
        .map(|v| v.measured.chars().count())
        .max()
        .unwrap_or(0);
    writeln!(out, "\nTargets (ratios within this run):")?;
    for v in verdicts {
        let pad = width - v.target.chars().count();
        let mark = if v.met { "met" } else { "MISSED" };
        writeln!(
            out,
            "  {}{} {:>measured$}  {mark}",
            v.target,
            " ".repeat(pad),
            v.measured
        )?;
    }
    let met = verdicts.iter().filter(|v| v.met).count();
    writeln!(out, "{met} of {} targets met", verdicts.len())?;
    writeln!(
        out,
        "(floor: a same-run pass that only reads the cast's input and writes its output, as a percentage of memcpy: how far moving those bytes alone gets here; input or output alone: a pass that only reads the input or only writes the output, whichever is larger, a cost every cast pays in full; cached × n: the case's 1 Mi row on one thread, its data in cache, times n threads, as a percentage of the large size's memcpy: how far the kernel's arithmetic alone would get, so a miss with this below the target is the arithmetic's, not the memory's)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(case: &str, elements: usize, threads: usize, gelem: f64, pct: f64) -> Row {
        Row {
            case: case.into(),
            kernel: "k",
            elements,
            threads,
            gelem: [gelem; 3],
            bytes_per_elem: 6.0,
            pct_memcpy: pct,
            pct_floor: 90.0,
            floor_pct_memcpy: 75.0,
            alone: (elements > 1 << 20).then_some(crate::cases::Alone {
                side: "input",
                pct_memcpy: 98.0,
            }),
            x_half: None,
            pct_bare: None,
        }
    }

    #[test]
    fn a_large_row_names_its_cached_ceiling_from_the_one_thread_row() {
        // 2 Gelem/s on one thread in cache, 3 Gelem/s on 2 threads reaching 30 % of memcpy:
        // 2 threads at 2 Gelem/s each would reach 30 % × 4 / 3 = 40 %
        let rows = [
            row("f32->hif8 rint", 1 << 20, 1, 2.0, 10.0),
            row("f32->hif8 rint", 1 << 26, 2, 3.0, 30.0),
        ];
        let v = check(&rows, &[]);
        let big = v
            .iter()
            .find(|x| x.target.starts_with("f32->hif8 rint 64Mi"))
            .expect("the large row's verdict");
        assert!(!big.met);
        assert!(
            big.measured.contains("cached × 2 40.0 %"),
            "{}",
            big.measured
        );
        // without the one-thread row there is no ceiling to name
        let v = check(&rows[1..], &[]);
        assert!(!v[0].measured.contains("cached"), "{}", v[0].measured);
    }

    #[test]
    fn special_data_may_be_at_most_one_and_a_half_times_slower() {
        let pair = |case: &str, speed_ratio| Pair {
            case: case.into(),
            base: "f32->f16 rint".into(),
            elements: 1 << 20,
            threads: 1,
            speed_ratio,
        };
        // 1.5x the time is 2/3 of the speed
        let pairs = vec![
            pair("f32->f16 rint masked", 0.67),
            pair("f32->f16 rint nan1%", 0.66),
        ];
        let v = check(&[], &pairs);
        let by = |s: &str| v.iter().find(|x| x.target.starts_with(s)).map(|x| x.met);
        assert_eq!(by("f32->f16 rint masked vs f32->f16 rint 1Mi"), Some(true));
        assert_eq!(by("f32->f16 rint nan1% vs f32->f16 rint 1Mi"), Some(false));
    }

    #[test]
    fn targets_follow_the_rows_ratios() {
        let rows = vec![
            row("f32->f16 rint", 64 << 20, 2, 3.0, 101.0),
            row("f32->f16 trunc", 64 << 20, 2, 2.6, 90.0),
            row("f32->f8e8m0 rint", 64 << 20, 2, 1.0, 49.0),
            row("f8e4m3fn->f32 rint", 64 << 20, 2, 1.0, 99.0),
            row("f32->i8 rint", 1 << 20, 1, 1.0, 51.0),
            row("f64->f32 rint", 64 << 20, 2, 1.0, 20.0),
        ];
        let pair = |case: &str, base: &str, elements, threads, speed_ratio| Pair {
            case: case.into(),
            base: base.into(),
            elements,
            threads,
            speed_ratio,
        };
        let pairs = vec![
            pair("f32->f16 trunc", "f32->f16 rint", 64 << 20, 2, 0.891),
            pair("f32->f16 trunc", "f32->f16 rint", 1 << 20, 1, 0.95),
            pair("f32->i4 rint", "f32->i4 rint unpacked", 1 << 20, 1, 0.889),
            pair(
                "f32->f4e2m1 rint",
                "f32->f4e2m1 rint unpacked",
                64 << 20,
                2,
                0.79,
            ),
        ];
        let v = check(&rows, &pairs);
        let by = |s: &str| v.iter().find(|x| x.target.starts_with(s)).map(|x| x.met);
        assert_eq!(by("f32->f16 rint 64Mi"), Some(true));
        assert_eq!(by("f32->f16 trunc 64Mi, 2 thread(s): ≥ 50"), Some(true));
        assert_eq!(by("f32->f8e8m0 rint 64Mi"), Some(false));
        assert_eq!(by("f8e4m3fn->f32 rint 64Mi"), Some(false));
        assert_eq!(by("f32->i8 rint 1Mi"), Some(true));
        // 0.891 of rint's speed is 10.9 % slower: more than the 10 % allowed.
        assert_eq!(by("f32->f16 trunc vs f32->f16 rint 64Mi"), Some(false));
        assert_eq!(by("f32->f16 trunc vs f32->f16 rint 1Mi"), Some(true));
        assert_eq!(by("f32->i4 rint 1Mi, 1 thread(s): ≥ 80"), Some(true));
        assert_eq!(by("f32->f4e2m1 rint 64Mi, 2 thread(s): ≥ 80"), Some(false));
        assert_eq!(v.len(), 9);
        let p = v.iter().find(|x| x.target.starts_with("f32->i4 rint 1Mi"));
        assert_eq!(p.map(|x| x.measured.as_str()), Some("88.9 %"));
        let small = v.iter().find(|x| x.target.starts_with("f32->i8 rint 1Mi"));
        assert_eq!(
            small.map(|x| x.measured.as_str()),
            Some("51.0 % (floor 75.0 %)")
        );
        assert_eq!(check(&rows, &[]).len(), 5);
        // a memcpy target shows how far the bytes' movement alone gets
        let m = v
            .iter()
            .find(|x| x.target.starts_with("f32->f16 rint 64Mi"));
        assert_eq!(
            m.map(|x| x.measured.as_str()),
            Some("101.0 % (floor 75.0 %, input alone 98.0 %)")
        );
    }
}
