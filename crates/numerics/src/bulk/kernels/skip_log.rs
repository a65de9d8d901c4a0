//! The one way a kernel test says it could not test a level: `SKIPPED: <test> needs <level>:
//! <why>` on standard output, and the same line appended to the file named by
//! `NPUSIM_SKIP_LOG` when that is set (`.ci/run` prints that file after the tests). Shared by
//! the unit tests (`simd::level_here`) and the integration tests (`tests/numerics/kernel_support.rs`,
//! which include this file by path).

/// Prints and logs the skip line of `test`, which needs `level` but cannot have it for `why`.
pub(crate) fn report_skip(test: &str, level: &str, why: &str) {
    let line = format!("SKIPPED: {test} needs {level}: {why}\n");
    print!("{line}");
    if let Some(path) = std::env::var_os("NPUSIM_SKIP_LOG") {
        use std::io::Write;
        let logged = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .and_then(|mut f| f.write_all(line.as_bytes()));
        if let Err(e) = logged {
            panic!("cannot append to NPUSIM_SKIP_LOG {}: {e}", path.display());
        }
    }
}
