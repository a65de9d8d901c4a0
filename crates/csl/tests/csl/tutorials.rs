//! Parses every `.csl` file under the directory named by `NPUSIM_CSL_TUTORIALS` (a local copy
//! of public tutorials, which this repository does not hold) and checks that each prints
//! stably, then evaluates every `layout.csl` on WSE-2 and WSE-3 with the params in a
//! `params.txt` beside it (`M:4,N:6`), else those of its `commands_*.sh`; `out/` folders
//! (what `cslc -o out` wrote) are skipped. Without the variable it says it skipped.

use std::path::{Path, PathBuf};

use npusim_csl::SourceFile;
use npusim_csl::comptime::{Arch, ComptimeConfig, evaluate_layout, parse_params};
use npusim_csl::parse::{parse, parse_text};
use npusim_csl::print::print_module;

fn csl_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            // `out/` is what `cslc -o out` wrote: copies of the sources
            if path.file_name().is_some_and(|n| n == "out") {
                continue;
            }
            csl_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "csl") {
            out.push(path);
        }
    }
}

#[test]
fn every_tutorial_file_parses_and_prints_stably() {
    let Some(dir) = std::env::var_os("NPUSIM_CSL_TUTORIALS") else {
        eprintln!("skipped: NPUSIM_CSL_TUTORIALS is not set");
        return;
    };
    let mut files = Vec::new();
    csl_files(Path::new(&dir), &mut files);
    let mut failures = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let source = SourceFile::new(path.display().to_string(), text);
        match parse(&source) {
            Ok(module) => {
                let printed = print_module(&module);
                let again = print_module(&parse_text(&printed).unwrap());
                assert_eq!(again, printed, "{}", path.display());
            }
            Err(e) => failures.push(e.to_string()),
        }
    }
    eprintln!(
        "{} of {} files parse",
        files.len() - failures.len(),
        files.len()
    );
    let layouts: Vec<&PathBuf> = files.iter().filter(|p| p.ends_with("layout.csl")).collect();
    let mut evaluated = 0;
    for path in &layouts {
        let params = path
            .parent()
            .map(super::pe_fabric_tutorials::params_of)
            .unwrap_or_default();
        let source = SourceFile::new(
            path.display().to_string(),
            std::fs::read_to_string(path).unwrap(),
        );
        let mut ok = true;
        for arch in [Arch::Wse2, Arch::Wse3] {
            let config = ComptimeConfig {
                arch,
                params: parse_params(params.trim()).unwrap(),
            };
            if let Err(e) = evaluate_layout(&source, &config) {
                failures.push(format!("{arch:?}: {e}"));
                ok = false;
            }
        }
        evaluated += usize::from(ok);
    }
    eprintln!(
        "{evaluated} of {} layouts evaluate on WSE-2 and WSE-3",
        layouts.len()
    );
    for f in &failures {
        eprintln!("{f}\n");
    }
    assert!(failures.is_empty());
}
