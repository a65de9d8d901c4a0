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
