//! What `npusim cslc` does, so the command line stays a thin wrapper: the SDK compiler's
//! arguments read ([`cslc_options`]), the program compiled and written to its `out/`
//! directory ([`cslc`]), and the line it prints.

use std::path::Path;

use super::error::CompileError;
use super::out_dir;
use super::program::{CompileOptions, CompiledProgram};
use crate::comptime::{Arch, parse_params};

/// Reads `W,H` (as `--fabric-dims` and `--fabric-offsets` take it).
pub fn parse_pair(text: &str, what: &str) -> Result<(u32, u32), CompileError> {
    let bad = || CompileError::Argument(format!("{what} `{text}` is not two numbers `W,H`"));
    let (a, b) = text.split_once(',').ok_or_else(bad)?;
    Ok((
        a.trim().parse().map_err(|_| bad())?,
        b.trim().parse().map_err(|_| bad())?,
    ))
}

/// The compile options of the SDK compiler's arguments: `--arch` (`wse2` or `wse3`),
/// `--fabric-dims`, `--fabric-offsets`, `--params` (each given one's list, in order),
/// `--memcpy`, `--channels`, and the memcpy buffer columns `--width-west-buf` /
/// `--width-east-buf` (only 0 is modelled: buffers change where memcpy's columns go).
#[allow(clippy::too_many_arguments)]
pub fn cslc_options(
    arch: &str,
    fabric_dims: Option<&str>,
    fabric_offsets: Option<&str>,
    params: &[String],
    memcpy: bool,
    channels: Option<u32>,
    buffers: (u32, u32),
) -> Result<CompileOptions, CompileError> {
    if buffers != (0, 0) {
        return Err(CompileError::Argument(format!(
            "memcpy buffer columns (--width-west-buf {}, --width-east-buf {}) are not modelled yet; only 0 is",
            buffers.0, buffers.1
        )));
    }
    let arch = match arch {
        "wse2" => Arch::Wse2,
        "wse3" => Arch::Wse3,
        other => {
            return Err(CompileError::Argument(format!(
                "architecture `{other}` is not wse2 or wse3"
            )));
        }
    };
    Ok(CompileOptions {
        arch,
        params: if params.is_empty() {
            Vec::new()
        } else {
            parse_params(&params.join(",")).map_err(|e| CompileError::Argument(e.to_string()))?
        },
        fabric_dims: fabric_dims
            .map(|d| parse_pair(d, "fabric dims"))
            .transpose()?,
        fabric_offsets: fabric_offsets
            .map(|d| parse_pair(d, "fabric offsets"))
            .transpose()?,
        memcpy,
        channels,
    })
}

/// Compiles the layout at `layout` and writes the program to `out`; gives the line that
/// says what was written.
pub fn cslc(layout: &Path, options: CompileOptions, out: &Path) -> Result<String, CompileError> {
    let program = CompiledProgram::compile_files(layout, options)?;
    out_dir::write(&program, out)?;
    let (w, h) = program.rectangle;
    let p = program.placement;
    let tile_files: std::collections::BTreeSet<&str> = program
        .layout
        .tiles
        .values()
        .map(|t| t.file.as_str())
        .collect();
    let files = tile_files.len();
    // the other sources are the own modules the PE programs import
    let modules = program.sources.len().saturating_sub(1 + files);
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    let modules = if modules == 0 {
        String::new()
    } else {
        format!(" and {modules} module file{}", plural(modules))
    };
    Ok(format!(
        "compiled {} for {}: a {w}x{h} rectangle at ({}, {}) of a {}x{} fabric, {} PE program file{}{modules}; wrote {}\n",
        program.layout_file,
        program.options.arch.name(),
        p.offsets.0,
        p.offsets.1,
        p.fabric_dims.0,
        p.fabric_dims.1,
        files,
        plural(files),
        out.display()
    ))
}
