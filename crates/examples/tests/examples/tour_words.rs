//! The tour speaks of documents a user has (issue 29, item 8): every label it uses for a
//! document or a numbering (S1, S2, G rows, "repo", E1-E10) is explained on the
//! line where it first appears, and no label of npusim's design notes (spec sections,
//! m-notation) appears at all. The checks and verdicts are the same at every detail.

use npusim_examples::tour::{Detail, run};

/// The tour's text at `detail`, and its number of failures.
fn tour(detail: Detail) -> (String, usize) {
    let mut out = Vec::new();
    let failed = run(&mut out, detail).expect("writes to a Vec");
    (String::from_utf8(out).expect("UTF-8"), failed)
}

/// (label, a word the line of its first appearance must hold to explain it)
const LABELS: [(&str, &str); 7] = [
    ("S1", "950PR/950DT MicroAPI"),
    ("S2", "Atlas training series LocalTensor API"),
    ("derived", "pin what the two leave open"),
    ("G0", "golden table"),
    ("repo", "asc-devkit"),
    ("E1", "SDK's tutorial programs"),
    ("mapping worked examples", "furiosa-opt"),
];

#[test]
fn every_label_is_explained_where_it_first_appears() {
    for detail in [Detail::Summary, Detail::Verbose] {
        let (text, failed) = tour(detail);
        assert_eq!(failed, 0, "{text}");
        for (label, explained_by) in LABELS {
            // a label of several lines' explanation (S2's) counts the line that names it
            let first = text
                .lines()
                .find(|l| l.contains(label))
                .unwrap_or_else(|| panic!("{label} does not appear:\n{text}"));
            assert!(
                first.contains(explained_by) || next_line_explains(&text, first, explained_by),
                "{detail:?}: {label} first appears unexplained: {first}"
            );
        }
    }
}

/// Whether the line after `line` holds `words` (a sources paragraph wrapped over lines).
fn next_line_explains(text: &str, line: &str, words: &str) -> bool {
    let mut lines = text.lines().skip_while(|l| *l != line);
    lines.next();
    lines.next().is_some_and(|l| l.contains(words))
}

#[test]
fn no_design_note_labels() {
    let (text, _) = tour(Detail::Verbose);
    for word in [
        "§",
        "spec ",
        "m-notation",
        "seed text",
        "seed002",
        "shared/",
    ] {
        assert!(!text.contains(word), "{word}");
    }
}

#[test]
fn every_detail_gives_the_same_verdicts() {
    let (summary, a) = tour(Detail::Summary);
    let (verbose, b) = tour(Detail::Verbose);
    let (failures, c) = tour(Detail::FailuresOnly);
    assert_eq!((a, b, c), (0, 0, 0));
    assert!(
        !failures.lines().any(|l| l.starts_with("PASS")),
        "{failures}"
    );
    assert!(summary.lines().count() < verbose.lines().count());
    assert!(verbose.contains("golden rows: 213 rows, 266 checks: 266 PASS, 0 FAIL"));
}

#[test]
fn the_tour_compiles_and_runs_the_shipped_csl_program_on_both_architectures() {
    let (text, failed) = tour(Detail::Verbose);
    assert_eq!(failed, 0, "{text}");
    // y = A x + b of examples/csl/gemv_2x2/run.py's values, computed here
    let (m, n, pes) = (3usize, 4usize, 4usize);
    let a: Vec<f32> = (0..pes * m * n).map(|k| (k % 7) as f32 - 3.0).collect();
    let x: Vec<f32> = (0..n).map(|j| j as f32 * 0.5 + 1.0).collect();
    let y: Vec<String> = (0..pes * m)
        .map(|r| {
            let v = (0..n).fold(r as f32, |acc, j| acc + a[r * n + j] * x[j]);
            format!("{v:?}")
        })
        .collect();
    let y = format!("y = [{}]", y.join(", "));
    for arch in ["wse2", "wse3"] {
        let line = text
            .lines()
            .find(|l| l.starts_with("PASS CSL examples/csl/gemv_2x2") && l.contains(arch))
            .unwrap_or_else(|| panic!("no passing CSL line for {arch}:\n{text}"));
        assert!(line.contains(&y), "{line}\nwant {y}");
    }
    assert!(text.contains("on wse2 and wse3: 2 PASS, 0 FAIL"), "{text}");
}
