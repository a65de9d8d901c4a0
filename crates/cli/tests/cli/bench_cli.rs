//! End-to-end tests of `npusim bench`: what it prints and how it refuses, never how fast
//! anything ran (no timing is asserted).

use crate::support::npusim;
use predicates::prelude::*;

#[test]
fn a_quick_run_prints_rows_and_the_paired_packing_targets() {
    let out = npusim()
        .args(["bench", "--quick", "--repeats", "1", "--case", "f32->i4"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    // two cases, two sizes each
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("f32->i4 rint"))
        .collect();
    assert_eq!(rows.len(), 4, "{text}");
    assert!(rows.iter().all(|r| r.contains("f32-int-")), "{text}");
    // the packing target, from a paired measurement, at both sizes
    let paired = text
        .lines()
        .filter(|l| l.contains("f32->i4 rint") && l.contains("≥ 80 % of unpacked elements/s"))
        .count();
    assert_eq!(paired, 2, "{text}");
    assert!(text.contains("targets met"), "{text}");
}

#[test]
fn json_rows_carry_the_keys_the_issue_names() {
    let out = npusim()
        .args([
            "bench",
            "--quick",
            "--repeats",
            "1",
            "--case",
            "f32->bf16 rint",
            "--json",
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let rows: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let rows = rows.as_array().unwrap();
    // the plain case and its masked and 1 %-special variants, at two sizes each
    let names: Vec<&str> = rows.iter().filter_map(|r| r["case"].as_str()).collect();
    assert_eq!(
        names,
        [
            "f32->bf16 rint",
            "f32->bf16 rint",
            "f32->bf16 rint masked",
            "f32->bf16 rint masked",
            "f32->bf16 rint nan1%",
            "f32->bf16 rint nan1%"
        ]
    );
    for row in rows {
        for key in ["elements", "threads", "gelem_s_median", "pct_memcpy_median"] {
            assert!(row[key].is_number(), "{key} in {row}");
        }
    }
    assert_eq!(rows[0]["elements"], 1 << 20);
    assert_eq!(rows[0]["threads"], 1);
}

#[test]
fn an_unknown_case_is_refused_with_the_list_of_cases() {
    npusim()
        .args(["bench", "--quick", "--case", "f32->no-such-format"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("no benchmark case contains"))
        .stderr(predicate::str::contains("f32->bf16 rint"));
}
