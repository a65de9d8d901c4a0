//! Every help text true and in words a user can follow (issue 29, items 7 and 8): the program's
//! summary, each group's list of commands, what `--saturate` does to NaN, the labels of
//! `cerebras run`, and no reference to documents a user does not have ("seed 002", "spec §",
//! "m-notation").

// Test code: an unwrap that fails is a failed test.

use assert_cmd::Command;

/// The help text of `npusim ARGS... --help`.
fn help(args: &[&str]) -> String {
    let out = Command::cargo_bin("npusim")
        .unwrap()
        .args(args)
        .arg("--help")
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn the_summary_names_what_npusim_is_not_an_old_description() {
    let text = help(&[]);
    let about = text.lines().next().unwrap();
    assert!(!about.contains("seeds"), "{about}");
    assert!(about.contains("golden model"), "{about}");
    for group in ["Huawei Ascend", "Furiosa RNGD", "Cerebras WSE"] {
        assert!(about.contains(group), "{about}");
    }
}

#[test]
fn each_group_summary_names_every_command_of_the_group() {
    let text = help(&[]);
    let line = |name: &str| {
        text.lines()
            .find(|l| l.trim_start().starts_with(name))
            .unwrap()
            .to_string()
    };
    // "the `furiosa` summary omits `run`"
    let furiosa = line("furiosa");
    assert!(
        furiosa.contains("(map)") && furiosa.contains("(run)"),
        "{furiosa}"
    );
    let cerebras = line("cerebras");
    assert!(
        cerebras.contains("(access)") && cerebras.contains("(run)"),
        "{cerebras}"
    );
}

#[test]
fn saturate_says_what_becomes_of_nan_in_formats_without_one() {
    // "`--saturate` says NaN stays NaN but fp4/fp6 turn NaN into +0"
    let text = help(&["cast"]);
    assert!(!text.contains("(NaN stays NaN)"), "{text}");
    assert!(
        text.contains("formats without one (fp4, fp6, integers) get 0"),
        "{text}"
    );
}

#[test]
fn closed_sets_list_their_values() {
    let text = help(&["cast"]);
    for value in ["- npy:", "- safetensors:", "- raw:"] {
        assert!(text.contains(value), "{text}");
    }
    assert!(
        text.contains("[possible values: rint, round, floor, ceil, trunc, odd, hybrid, none]"),
        "{text}"
    );
}

#[test]
fn cerebras_run_names_its_labels_as_it_lists_them() {
    // "`cerebras run` says labels E3..E9 but lists E1-E10"
    let text = help(&["cerebras", "run"]);
    assert!(text.contains("E1..E11"), "{text}");
    assert!(!text.contains("spec label"), "{text}");
}

#[test]
fn no_help_text_names_a_document_the_user_does_not_have() {
    for args in [
        &[][..],
        &["cast"],
        &["info"],
        &["formats"],
        &["ascend"],
        &["ascend", "cast"],
        &["furiosa"],
        &["furiosa", "map"],
        &["furiosa", "run"],
        &["cerebras"],
        &["cerebras", "access"],
        &["cerebras", "run"],
    ] {
        let text = help(args).to_lowercase();
        // (The example files `examples/ascend/more_samples_*` keep their names: paths, not words.)
        for word in ["seed 0", "seeds'", "spec §", "spec label", "m-notation"] {
            assert!(
                !text.contains(word),
                "`{args:?} --help` says {word:?}:\n{text}"
            );
        }
    }
}
