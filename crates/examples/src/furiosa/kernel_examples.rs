//! The DM-to-DM kernels of `docs/furiosa-engines.md` §9.4 as shipped kernel files, each with
//! its documented input and an oracle written from the document's hand sums: what
//! `npusim furiosa run` reports as PASS/FAIL for those files, and what the tour runs.

use npusim_furiosa::pipeline::{Kernel, KernelInput, KernelRun, PipelineKind};

/// One shipped kernel: its file, documented input and expected output.
#[derive(Clone, Copy, Debug)]
pub struct KernelExample {
    /// The example's name in `docs/furiosa-engines.md` (K6, K7).
    pub name: &'static str,
    /// What it is.
    pub title: &'static str,
    /// The kernel file under npusim-furiosa's `examples/pipelines/`.
    pub file: &'static str,
    /// Its text.
    pub text: &'static str,
    /// The input tensor's name and codes in its logical order.
    pub input: fn() -> (&'static str, Vec<u64>),
    /// The output tensor's name.
    pub output: &'static str,
    /// The expected output code of logical element `i` (in the output's logical order).
    pub expected: fn(usize) -> u64,
}

/// K6's input, `R, T, A` = 4 × 16 × 512: x[r, t, a] = a + 1000t − 100r.
fn k6_input() -> (&'static str, Vec<u64>) {
    let codes = (0..4 * 16 * 512)
        .map(|i| {
            let (r, t, a) = (i / (16 * 512), i / 512 % 16, i % 512);
            (a as i64 + 1000 * t as i64 - 100 * r as i64) as i32 as u32 as u64
        })
        .collect();
    ("x", codes)
}

/// K6's output y[t, a] = wrap_i8(4a + 4000t − 600) (the sum over r of x), as an i8 code.
fn k6_expected(i: usize) -> u64 {
    let (t, a) = (i / 512, i % 512);
    u64::from((4 * a as i64 + 4000 * t as i64 - 600) as i8 as u8)
}

/// K7's input, `B, R` = 2 × 8192: x[b, r] = r − 4096 + b.
fn k7_input() -> (&'static str, Vec<u64>) {
    let codes = (0..2 * 8192)
        .map(|i| ((i % 8192) as i64 - 4096 + (i / 8192) as i64) as i32 as u32 as u64)
        .collect();
    ("x", codes)
}

/// K7's output: cluster b holds Σ_r x[b, r] = −4096 + 8192b.
fn k7_expected(b: usize) -> u64 {
    u64::from((-4096 + 8192 * b as i64) as i32 as u32)
}

/// The shipped kernels.
pub const KERNEL_EXAMPLES: [KernelExample; 2] = [
    KernelExample {
        name: "K6",
        title: "DM -> fetch -> collect -> inter-slice reduce -> cast -> commit -> DM",
        file: "kernel_inter_slice_reduce_cast.toml",
        text: include_str!(
            "../../../furiosa/examples/pipelines/kernel_inter_slice_reduce_cast.toml"
        ),
        input: k6_input,
        output: "y",
        expected: k6_expected,
    },
    KernelExample {
        name: "K7",
        title: "full_sum from DM to DM: intra-slice, then inter-slice reduce",
        file: "kernel_full_sum.toml",
        text: include_str!("../../../furiosa/examples/pipelines/kernel_full_sum.toml"),
        input: k7_input,
        output: "y",
        expected: k7_expected,
    },
];

/// The shipped kernel whose file `text` is (line endings and trailing spaces aside), if any.
pub fn kernel_example(text: &str) -> Option<&'static KernelExample> {
    fn lines(t: &str) -> Vec<&str> {
        t.lines().map(str::trim_end).collect()
    }
    KERNEL_EXAMPLES
        .iter()
        .find(|k| lines(k.text) == lines(text))
}

impl KernelExample {
    /// The kernel of the file.
    pub fn kernel(&self) -> Result<Kernel, String> {
        match PipelineKind::parse(self.text) {
            Ok(PipelineKind::Kernel(k)) => Ok(k),
            Ok(PipelineKind::Stream(_)) => Err(format!("{} is not a kernel file", self.file)),
            Err(e) => Err(format!("{}: {e}", self.file)),
        }
    }

    /// Runs `kernel` on the example's own input.
    pub fn run(&self, kernel: &Kernel) -> Result<KernelRun, String> {
        let (name, codes) = (self.input)();
        kernel
            .run(&[(name.to_string(), KernelInput::Codes(codes))])
            .map_err(|e| format!("on the input of {}: {e}", self.name))
    }

    /// Checks `kernel` against the example: run on its input, every output element must be the
    /// oracle's. `Ok` says what passed; `Err` names the first difference.
    pub fn check(&self, kernel: &Kernel) -> Result<String, String> {
        self.compare(&self.run(kernel)?)
    }

    /// Compares a run of the example's input with the oracle (as [`KernelExample::check`]).
    pub fn compare(&self, run: &KernelRun) -> Result<String, String> {
        let got = run
            .values(self.output)
            .map_err(|e| format!("on the input of {}: {e}", self.name))?;
        if let Some(i) = (0..got.len()).find(|&i| got[i] != (self.expected)(i)) {
            return Err(format!(
                "on the input of {} ({}), output element {i} of `{}` is {:#x} where {:#x} is expected",
                self.name,
                self.title,
                self.output,
                got[i],
                (self.expected)(i)
            ));
        }
        Ok(format!(
            "on the input of {} ({}), all {} elements of `{}` are the documented sums",
            self.name,
            self.title,
            got.len(),
            self.output
        ))
    }
}

/// The report lines of `npusim furiosa run` for kernel file `text`: `check: …` and
/// `result: PASS`/`FAIL` for a shipped kernel, a `check: none` line otherwise; and whether it
/// passed (always for a file that is no shipped kernel).
pub fn verdict(text: &str, kernel: &Kernel) -> (String, bool) {
    match kernel_example(text) {
        Some(ex) => match ex.check(kernel) {
            Ok(what) => (format!("check: {what}\nresult: PASS\n"), true),
            Err(what) => (format!("check: {what}\nresult: FAIL\n"), false),
        },
        None => (
            "check: none (not one of the shipped kernels, so no expected values)\n".into(),
            true,
        ),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // an unwrap that fails is a failed test
mod tests {
    use super::*;

    #[test]
    fn the_shipped_kernels_pass_and_a_changed_one_fails() {
        for ex in &KERNEL_EXAMPLES {
            let k = ex.kernel().unwrap();
            assert!(ex.check(&k).is_ok(), "{}: {:?}", ex.name, ex.check(&k));
            assert!(kernel_example(ex.text).is_some());
        }
        // K6 with Max instead of AddSat: y[0, 0] is max(x) = 0, not −88.
        let ex = &KERNEL_EXAMPLES[0];
        let text = ex.text.replace("name = \"AddSat\"", "name = \"Max\"");
        let k = match PipelineKind::parse(&text).unwrap() {
            PipelineKind::Kernel(k) => k,
            PipelineKind::Stream(_) => unreachable!(),
        };
        let e = ex.check(&k).unwrap_err();
        assert!(
            e.contains("output element 0 of `y` is 0x0 where 0xa8 is expected"),
            "{e}"
        );
        assert!(kernel_example(&text).is_none());
    }
}
