//! A pipeline file checked against the shipped worked example it is: run on the example's own
//! input, it must give the example's output codes (what `npusim furiosa run` reports as
//! PASS/FAIL).

use npusim_furiosa::pipeline::Pipeline;

use super::document_examples::{DOCUMENT_EXAMPLES, DocumentExample};

/// The shipped worked example whose pipeline file `text` is (line endings and trailing
/// spaces aside), if any.
pub fn worked_example(text: &str) -> Option<&'static DocumentExample> {
    fn lines(t: &str) -> Vec<&str> {
        t.lines().map(str::trim_end).collect()
    }
    DOCUMENT_EXAMPLES
        .iter()
        .find(|ex| lines(ex.pipeline) == lines(text))
}

/// Checks `pipeline` against the worked example `ex`: run on the example's own input, it must
/// give the example's output, every cell of which the example's oracle (written over logical
/// coordinates) has checked. `Ok` says what passed; `Err` what failed.
pub fn check(ex: &DocumentExample, pipeline: &Pipeline) -> Result<String, String> {
    let name = format!("\"{}\" (Furiosa documentation, \"{}\")", ex.title, ex.page);
    let run = (ex.run)().map_err(|e| format!("the worked example {name} did not run: {e}"))?;
    if !run.pass() {
        return Err(format!(
            "{} of {} output cells of the worked example {name} differ from its oracle",
            run.mismatches, run.checked
        ));
    }
    let (out, _) = pipeline
        .run(run.input.clone())
        .map_err(|e| format!("on the input of the worked example {name}: {e}"))?;
    if let Some(i) = (0..run.codes.len().max(out.codes().len()))
        .find(|&i| out.codes().get(i) != run.codes.get(i).copied())
    {
        let show = |c: Option<u64>| c.map_or("nothing".to_string(), |c| format!("{c:#x}"));
        return Err(format!(
            "on the input of the worked example {name}, output code {i} is {} where {} is expected ({} codes, {} expected)",
            show(out.codes().get(i)),
            show(run.codes.get(i).copied()),
            out.codes().len(),
            run.codes.len()
        ));
    }
    Ok(format!(
        "on the input of the worked example {name}, this pipeline gives all {} expected output codes (each cell checked against the example's oracle)",
        run.codes.len()
    ))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // an unwrap that fails is a failed test
mod tests {
    use super::*;

    #[test]
    fn a_pipeline_that_differs_from_its_worked_example_fails_the_check() {
        let ex = &DOCUMENT_EXAMPLES[0];
        let same = Pipeline::parse(ex.pipeline).unwrap();
        assert!(check(ex, &same).is_ok());
        // The same stream cast to i16 (16 lanes a flit): other codes, so FAIL naming one.
        let other = ex
            .pipeline
            .replace("dtype = \"i8\"", "dtype = \"i16\"")
            .replace("A # 32", "A # 16");
        assert!(worked_example(&other).is_none());
        let err = check(ex, &Pipeline::parse(&other).unwrap()).unwrap_err();
        assert!(
            err.contains("output code ") && err.contains(" is expected"),
            "{err}"
        );
    }
}
