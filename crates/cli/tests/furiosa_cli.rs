//! End-to-end tests of `npusim furiosa map`.

#![allow(clippy::unwrap_used)]

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::{Value, json};

fn npusim() -> Command {
    Command::cargo_bin("npusim").unwrap()
}

fn map_json(expr: &str, axes: &str) -> Value {
    let out = npusim()
        .args(["furiosa", "map", expr, "--axes", axes, "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.trim().lines().count(), 1, "one JSON object: {text}");
    serde_json::from_str(&text).unwrap()
}

#[test]
fn json_matches_the_worked_examples() {
    let v = map_json("C, D # 64", "C=13,D=61");
    assert_eq!(v["size"], 832);
    let cells = v["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 832);
    assert_eq!(cells[0], json!({}));
    assert_eq!(cells[60], json!({"D": 60}));
    assert_eq!(cells[61], json!("top"));
    assert_eq!(cells[64], json!({"C": 1}));
    assert_eq!(cells[831], json!("top"));

    let v = map_json("A #{0} 4, B #{!} 4", "A=3,B=3");
    let cells = v["cells"].as_array().unwrap();
    assert_eq!(cells[2], json!({"B": 2}));
    assert_eq!(cells[3], json!("bottom"));
    assert_eq!(cells[4], json!({"A": 1}));
    assert_eq!(cells[12], json!("zero"));
    assert_eq!(cells[15], json!("zero"));

    let v = map_json("A % 5, A / 5", "A=15");
    let cells = v["cells"].as_array().unwrap();
    assert_eq!(
        (cells[1].clone(), cells[3].clone()),
        (json!({"A": 5}), json!({"A": 1}))
    );

    // Overshoot of a padded split counts as top (spec 1.6).
    let v = map_json("B # 64 / 32, B # 64 % 32", "B=56");
    let cells = v["cells"].as_array().unwrap();
    assert_eq!(cells[55], json!({"B": 55}));
    assert_eq!(cells[56], json!("top"));
}

#[test]
fn json_display_parses_back_to_the_same_cells() {
    for (expr, axes) in [
        ("B/64, B%32, B/32%2", "B=512"),
        ("A, B = 2 # 512", "A=8,B=512"),
        ("[A, B] / 512", "A=8,B=512"),
        ("4, A", "A=3"),
    ] {
        let v = map_json(expr, axes);
        let back = map_json(v["display"].as_str().unwrap(), axes);
        assert_eq!(v, back, "{expr}");
    }
}

#[test]
fn text_lists_normal_form_size_and_cells() {
    npusim()
        .args(["furiosa", "map", "B / 64, B % 64", "--axes", "B=512"])
        .assert()
        .success()
        .stdout(predicate::str::contains("normalised: B\n"))
        .stdout(predicate::str::contains("size:       512\n"))
        .stdout(predicate::str::contains("130: {B: 130}\n"));
}

#[test]
fn invalid_mappings_fail_with_the_column() {
    for (expr, axes, needle) in [
        ("A, Q", "A=8", "column 4: unknown axis `Q`"),
        (
            "A / 3",
            "A=8",
            "column 3: `A / 3`: stride 3 does not divide",
        ),
        (
            "A % 3",
            "A=8",
            "column 3: `A % 3`: modulo 3 does not divide",
        ),
        ("A = 9", "A=8", "column 3: `A = 9`: resize 9 is larger"),
        ("A # 4", "A=8", "column 3: `A # 4`: padding 4 is smaller"),
        ("A,,B", "A=8,B=2", "column 3: syntax error"),
    ] {
        npusim()
            .args(["furiosa", "map", expr, "--axes", axes, "--json"])
            .assert()
            .failure()
            .stdout(predicate::str::is_empty())
            .stderr(predicate::str::contains(needle));
    }
}
