//! Every `npusim ...` command of README.md's ```sh blocks runs as written.
//!
//! Each command runs through `sh -c`, in order, in one temporary directory that holds a copy of
//! the repository's `examples/` (and of any other repository file a command names), with the
//! built `npusim` first on `PATH`; so commands may use earlier commands' outputs and nothing is
//! written into the repository. A command marked with a trailing `# fails: why` must fail;
//! every other command must succeed. `npusim tour` and `npusim bench` are skipped (CI runs
//! them on their own).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository root.
fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// One README command: the text given to `sh -c` and whether it must fail.
#[derive(Debug, PartialEq)]
struct ReadmeCommand {
    line: String,
    must_fail: bool,
}

/// The lines of the ```sh blocks of `markdown`, continuation lines (`\` at the end) joined.
fn sh_lines(markdown: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut in_sh = false;
    let mut pending = String::new();
    for raw in markdown.lines() {
        let trimmed = raw.trim_start();
        if trimmed.starts_with("```") {
            in_sh = !in_sh && trimmed.trim_end() == "```sh";
            continue;
        }
        if !in_sh {
            continue;
        }
        if let Some(head) = raw.strip_suffix('\\') {
            pending.push_str(head);
            continue;
        }
        pending.push_str(raw);
        lines.push(std::mem::take(&mut pending).trim().to_string());
    }
    lines
}

/// The `npusim` commands among `lines`, without `tour` and `bench`.
fn npusim_commands(lines: &[String]) -> Vec<ReadmeCommand> {
    lines
        .iter()
        .filter(|l| l.starts_with("npusim "))
        .filter(|l| {
            let sub = l.split_whitespace().nth(1).unwrap_or("");
            sub != "tour" && sub != "bench"
        })
        .map(|l| ReadmeCommand {
            line: l.clone(),
            must_fail: l.contains("# fails:"),
        })
        .collect()
}

/// Copies the directory `from` into `to`, recursively.
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create directory");
    for entry in std::fs::read_dir(from).expect("read directory") {
        let entry = entry.expect("directory entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("file type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy file");
        }
    }
}

/// Copies into `dir` every word of `line` that names a file of the repository (by a relative
/// path with a directory part, e.g. `crates/furiosa/examples/pipelines/x.toml`).
fn copy_named_files(line: &str, dir: &Path) {
    let root = repo_root();
    for word in line.split_whitespace() {
        let word = word.trim_matches(|c| c == '\'' || c == '"');
        if !word.contains('/') || word.starts_with('/') || word.starts_with("examples/") {
            continue;
        }
        let source = root.join(word);
        if source.is_file() {
            let target = dir.join(word);
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent).expect("create directory");
            }
            std::fs::copy(&source, &target).expect("copy file");
        }
    }
}

#[test]
fn every_readme_command_runs_as_written() {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).expect("read README.md");
    let commands = npusim_commands(&sh_lines(&readme));
    assert!(
        commands.len() >= 15,
        "only {} npusim commands found in README.md's sh blocks",
        commands.len()
    );
    assert!(
        commands.iter().any(|c| c.must_fail),
        "no command is marked `# fails:`"
    );
    let dir = tempfile::tempdir().expect("temporary directory");
    copy_dir(&repo_root().join("examples"), &dir.path().join("examples"));
    let bin = dir.path().join(".bin");
    std::fs::create_dir(&bin).expect("create .bin");
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_npusim"), bin.join("npusim"))
        .expect("link npusim");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let python = crate::support::python_with_numpy();
    let mut failures = Vec::new();
    for command in &commands {
        copy_named_files(&command.line, dir.path());
        let mut sh = Command::new("sh");
        if command.line.starts_with("npusim cs-python") {
            match &python {
                Some(p) => {
                    sh.env("NPUSIM_PYTHON", p);
                }
                None => {
                    eprintln!(
                        "skipped: `{}` needs a python3 with numpy (set NPUSIM_PYTHON or run tools/test-python)",
                        command.line
                    );
                    continue;
                }
            }
        }
        let out = sh
            .arg("-c")
            .arg(&command.line)
            .current_dir(dir.path())
            .env("PATH", &path)
            .output()
            .expect("run sh");
        if out.status.success() == command.must_fail {
            failures.push(format!(
                "`{}` {} (status {})\nstdout:\n{}\nstderr:\n{}",
                command.line,
                if command.must_fail {
                    "is marked `# fails:` but succeeded"
                } else {
                    "failed"
                },
                out.status,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ));
        } else if command.must_fail && out.stderr.is_empty() {
            failures.push(format!("`{}` failed without a message", command.line));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn extraction_joins_continuations_and_reads_fail_marks() {
    let md = "text\n```sh\n# a comment\nnpusim a \\\n    --b 1\nnpusim tour\nnpusim c   # fails: no\n```\n\
              ```rust\nnpusim not_sh\n```\nnpusim outside\n";
    let commands = npusim_commands(&sh_lines(md));
    assert_eq!(
        commands,
        [
            ReadmeCommand {
                line: "npusim a     --b 1".into(),
                must_fail: false
            },
            ReadmeCommand {
                line: "npusim c   # fails: no".into(),
                must_fail: true
            },
        ]
    );
}

/// Issue 29, item 8: "README examples write a dozen files into the repository root (two of them
/// the same `y.npy`): write them to a scratch directory." The command-line section moves to a
/// new temporary directory before its first `npusim` command; no command that succeeds writes
/// into `examples/` or `crates/` (links to the repository there), and no two write one file.
#[test]
fn readme_commands_write_into_a_scratch_directory_and_never_one_file_twice() {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).expect("read README.md");
    let lines = sh_lines(&readme);
    let first = lines.iter().position(|l| l.starts_with("npusim "));
    let scratch = lines
        .iter()
        .position(|l| l.starts_with("cd \"$(mktemp -d)\""));
    assert!(
        matches!((scratch, first), (Some(s), Some(f)) if s < f),
        "no `cd \"$(mktemp -d)\"` before the first npusim command"
    );
    let mut written = std::collections::HashSet::new();
    for command in npusim_commands(&lines).iter().filter(|c| !c.must_fail) {
        let words: Vec<&str> = command.line.split_whitespace().collect();
        for pair in words.windows(2) {
            let [flag, path] = pair else { continue };
            if !["-o", "--trace"].contains(flag) || *path == "-" {
                continue;
            }
            assert!(
                !path.starts_with("examples/") && !path.starts_with("crates/"),
                "`{}` writes into the repository",
                command.line
            );
            assert!(
                written.insert(path.to_string()),
                "`{}` writes {path} again",
                command.line
            );
        }
    }
}
