//! The `out/` directory a compile writes and the host runtime reads: the program's sources
//! under `src/` and a small text manifest, `npusim-csl.manifest`, with the compiler's
//! arguments (architecture, fabric dims and offsets, memcpy, channels, params) and, for
//! reading only, each PE's file and evaluated params. Reading recompiles the sources with
//! the recorded arguments, so an `out/` directory is always the program it names.
//!
//! Beside it, `out.json` holds what host scripts read of a compile, as the SDK's does:
//! `{"params": {"M": "4", ...}}` (each `--params` value as its text).
//!
//! ```text
//! npusim-csl compiled program 1
//! arch wse3
//! layout layout.csl
//! fabric-dims 8 3
//! fabric-offsets 4 1
//! memcpy true
//! channels 1
//! param M 4
//! source layout.csl
//! source pe_program.csl
//! tile 0 0 pe_program.csl .{ .M = 4 }
//! ```

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use super::error::CompileError;
use super::program::{CompileOptions, CompiledProgram};
use crate::comptime::{Arch, parse_params};

/// The manifest's file name inside `out/`.
pub const MANIFEST: &str = "npusim-csl.manifest";
/// The manifest's first line.
const HEADER: &str = "npusim-csl compiled program 1";
/// Where the sources go inside `out/`.
const SOURCES: &str = "src";

/// The manifest text of `program`.
pub fn manifest(program: &CompiledProgram) -> String {
    let o = &program.options;
    let p = &program.placement;
    let mut s = String::new();
    let _ = writeln!(s, "{HEADER}");
    let _ = writeln!(s, "arch {}", o.arch.name());
    let _ = writeln!(s, "layout {}", program.layout_file);
    let _ = writeln!(s, "fabric-dims {} {}", p.fabric_dims.0, p.fabric_dims.1);
    let _ = writeln!(s, "fabric-offsets {} {}", p.offsets.0, p.offsets.1);
    let _ = writeln!(s, "memcpy {}", o.memcpy);
    if let Some(c) = o.channels {
        let _ = writeln!(s, "channels {c}");
    }
    for (name, value) in &o.params {
        let _ = writeln!(s, "param {name} {value}");
    }
    for name in program.sources.keys() {
        let _ = writeln!(s, "source {name}");
    }
    for ((x, y), tile) in &program.layout.tiles {
        let params: Vec<String> = tile
            .params
            .iter()
            .map(|(n, v)| format!(".{n} = {v}"))
            .collect();
        let _ = writeln!(s, "tile {x} {y} {} .{{ {} }}", tile.file, params.join(", "));
    }
    s
}

/// The file host scripts read the compile's params from.
pub const OUT_JSON: &str = "out.json";

/// The text of `out.json`: the compiler's params as strings.
pub fn out_json(program: &CompiledProgram) -> String {
    let params: Vec<String> = program
        .options
        .params
        .iter()
        .map(|(n, v)| format!("\"{n}\": \"{v}\""))
        .collect();
    format!("{{\"params\": {{{}}}}}\n", params.join(", "))
}

/// A source name that may be written under `src/`: a plain file name.
fn plain_name(name: &str) -> bool {
    !name.is_empty()
        && name != "."
        && name != ".."
        && !name.contains(['/', '\\'])
        && !name.contains('\0')
}

/// Writes `program` to the directory `dir` (created if missing; files of an earlier
/// compile are replaced).
pub fn write(program: &CompiledProgram, dir: &Path) -> Result<(), CompileError> {
    let werr = |path: &Path| {
        let path = path.to_path_buf();
        move |source| CompileError::Write { path, source }
    };
    let src = dir.join(SOURCES);
    std::fs::create_dir_all(&src).map_err(werr(&src))?;
    for (name, text) in &program.sources {
        if !plain_name(name) {
            return Err(CompileError::OutDir {
                path: dir.to_path_buf(),
                why: format!("source `{name}` is not a plain file name, so it is not written"),
            });
        }
        let path = src.join(name);
        std::fs::write(&path, text).map_err(werr(&path))?;
    }
    let path = dir.join(OUT_JSON);
    std::fs::write(&path, out_json(program)).map_err(werr(&path))?;
    let path = dir.join(MANIFEST);
    std::fs::write(&path, manifest(program)).map_err(werr(&path))
}

/// Reads and recompiles the program in directory `dir`.
pub fn read(dir: &Path) -> Result<CompiledProgram, CompileError> {
    let path = dir.join(MANIFEST);
    let text = std::fs::read_to_string(&path).map_err(|source| CompileError::Read {
        path: path.clone(),
        source,
    })?;
    let bad = |line: usize, why: String| CompileError::OutDir {
        path: path.clone(),
        why: format!("line {line}: {why}"),
    };
    let mut lines = text.lines().enumerate();
    if lines.next().map(|(_, l)| l) != Some(HEADER) {
        return Err(CompileError::OutDir {
            path: path.clone(),
            why: format!("not a program compiled by npusim (the first line is not `{HEADER}`)"),
        });
    }
    let mut options = CompileOptions::default();
    let mut layout = None;
    let mut sources = BTreeMap::new();
    let pair = |line: usize, v: &str| -> Result<(u32, u32), CompileError> {
        let mut it = v.split(' ').map(str::parse::<u32>);
        match (it.next(), it.next(), it.next()) {
            (Some(Ok(a)), Some(Ok(b)), None) => Ok((a, b)),
            _ => Err(bad(line, format!("expected two numbers, found `{v}`"))),
        }
    };
    for (i, l) in lines {
        let n = i + 1;
        let (key, value) = l.split_once(' ').unwrap_or((l, ""));
        match key {
            "arch" => {
                options.arch = match value {
                    "wse2" => Arch::Wse2,
                    "wse3" => Arch::Wse3,
                    other => return Err(bad(n, format!("unknown architecture `{other}`"))),
                };
            }
            "layout" => layout = Some(value.to_string()),
            "fabric-dims" => options.fabric_dims = Some(pair(n, value)?),
            "fabric-offsets" => options.fabric_offsets = Some(pair(n, value)?),
            "memcpy" => options.memcpy = value == "true",
            "channels" => {
                options.channels = Some(
                    value
                        .parse()
                        .map_err(|_| bad(n, format!("channels `{value}` is not a number")))?,
                );
            }
            "param" => {
                let (name, v) = value.split_once(' ').unwrap_or((value, ""));
                let mut p =
                    parse_params(&format!("{name}:{v}")).map_err(|e| bad(n, e.to_string()))?;
                options.params.append(&mut p);
            }
            "source" => {
                if !plain_name(value) {
                    return Err(bad(n, format!("source `{value}` is not a plain file name")));
                }
                let p = dir.join(SOURCES).join(value);
                let text = std::fs::read_to_string(&p)
                    .map_err(|source| CompileError::Read { path: p, source })?;
                sources.insert(value.to_string(), text);
            }
            "tile" | "" => {}
            other => return Err(bad(n, format!("unknown entry `{other}`"))),
        }
    }
    let layout = layout.ok_or_else(|| bad(1, "no `layout` line".into()))?;
    CompiledProgram::compile(&layout, sources, options)
}
