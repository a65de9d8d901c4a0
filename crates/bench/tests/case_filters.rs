//! A filter that picks no case is refused before anything is measured, in the library's own
//! words and with the list of cases to pick from, for the table and the crossover alike.

use npusim_bench::{BenchError, BenchOptions, run};

fn refused(crossover: bool) -> String {
    let options = BenchOptions {
        cases: vec!["f32->no-such-format".into()],
        crossover,
        quick: true,
        ..BenchOptions::default()
    };
    let mut progress_calls = 0;
    let err = match run(&options, &mut |_| progress_calls += 1) {
        Ok(_) => panic!("an unknown case was measured"),
        Err(e) => e,
    };
    assert!(matches!(err, BenchError::NoCase { .. }), "{err}");
    assert_eq!(progress_calls, 0);
    err.to_string()
}

#[test]
fn an_unknown_case_is_refused_with_the_list_of_cases() {
    for crossover in [false, true] {
        let message = refused(crossover);
        assert!(
            message.starts_with("no benchmark case contains [\"f32->no-such-format\"]"),
            "{message}"
        );
        assert!(message.contains("f32->bf16 rint"), "{message}");
        assert!(!message.contains("--"), "no command-line flag: {message}");
    }
}

#[test]
fn samples_default_per_run_length_and_are_at_least_one() {
    let mut o = BenchOptions::default();
    assert_eq!(o.samples(), 7);
    o.quick = true;
    assert_eq!(o.samples(), 3);
    o.repeats = Some(0);
    assert_eq!(o.samples(), 1);
}
