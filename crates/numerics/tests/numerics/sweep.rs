//! How many random patterns the random sweeps cast. By default each sweep is sized for a quick
//! check (its `quick` log2 count); the boundary codes and the exhaustive sweeps of small
//! sources stay complete. With `NPUSIM_SWEEP_LOG2=L` set, every random sweep casts 2^L patterns
//! (a sweep that scales its count, such as the 64-bit sources of `wide_sources`, scales 2^L the
//! same way): `NPUSIM_SWEEP_LOG2=24` is the full sweep. Setting the variable also runs whole
//! the sweeps that the quick check cuts down ([`full_sweeps`]). A value that is not a whole
//! number from 0 to 32 fails the test that reads it, naming the value.

/// The environment variable that sets the log2 count of every random sweep.
pub const SWEEP_LOG2_VAR: &str = "NPUSIM_SWEEP_LOG2";

/// The largest log2 count [`SWEEP_LOG2_VAR`] may ask for.
pub const MAX_SWEEP_LOG2: u32 = 32;

/// The log2 count of a random sweep: [`SWEEP_LOG2_VAR`] when set, else `quick`. Panics,
/// naming the value, when the variable is set to something other than a count.
pub fn sweep_log2(quick: u32) -> u32 {
    let value = std::env::var_os(SWEEP_LOG2_VAR);
    parse_sweep_log2(
        value.as_deref().map(|v| v.to_string_lossy()).as_deref(),
        quick,
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

/// The log2 count that the variable's `value` (`None`: unset) asks for, else `quick`; a value
/// that is not a whole number from 0 to [`MAX_SWEEP_LOG2`] is an error naming it.
pub fn parse_sweep_log2(value: Option<&str>, quick: u32) -> Result<u32, String> {
    let Some(text) = value else {
        return Ok(quick);
    };
    match text.trim().parse::<u32>() {
        Ok(l) if l <= MAX_SWEEP_LOG2 => Ok(l),
        _ => Err(format!(
            "{SWEEP_LOG2_VAR}={text:?} is not a log2 count: a whole number from 0 to {MAX_SWEEP_LOG2}"
        )),
    }
}

/// Whether the full sweeps run: [`SWEEP_LOG2_VAR`] is set (to a valid count). Tests that cut
/// an exhaustive sweep down for the quick check (such as the 16-bit sources' modes of
/// `kernels::table_kernel_equals_the_reference_for_every_small_source`) run it whole then.
pub fn full_sweeps() -> bool {
    let set = std::env::var_os(SWEEP_LOG2_VAR).is_some();
    if set {
        sweep_log2(0);
    }
    set
}

/// How many random patterns a sweep casts: 2^[`sweep_log2`]`(quick)`.
pub fn sweep_len(quick: u32) -> usize {
    1usize << sweep_log2(quick)
}

#[test]
fn the_quick_count_holds_unless_the_variable_sets_a_count_from_0_to_32() {
    assert_eq!(parse_sweep_log2(None, 11), Ok(11));
    assert_eq!(parse_sweep_log2(Some("24"), 11), Ok(24));
    assert_eq!(parse_sweep_log2(Some(" 0 "), 11), Ok(0));
    assert_eq!(parse_sweep_log2(Some("32"), 11), Ok(32));
    for bad in ["33", "-1", "", "full", "2^24"] {
        let e = parse_sweep_log2(Some(bad), 11).unwrap_err();
        assert!(
            e.contains(SWEEP_LOG2_VAR) && e.contains(&format!("{bad:?}")) && e.contains("0 to 32"),
            "{e}"
        );
    }
}
