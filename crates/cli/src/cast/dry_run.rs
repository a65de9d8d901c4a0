//! `npusim cast --dry-run`: what the cast would do, from the input's header alone.

use std::process::ExitCode;

use anyhow::Result;
use npusim_io::cast::preview;
use npusim_io::{CastJob, check_destination, shape_str};

use super::args::CastArgs;
use super::errors::explain;
use super::keep_reason;
use crate::output::{emit, is_stdio};
use npusim_io::report::cast::{dry_run_json, preview_action};
use npusim_io::report::table::align;

/// `--dry-run`: checks what the run would check before casting (the output path, as the run
/// does), then prints the cast's preview as a table (one row per tensor, and the byte totals)
/// or, with `--json`, as one JSON document.
pub fn dry_run(job: &CastJob, args: &CastArgs) -> Result<ExitCode> {
    if is_stdio(&args.input) {
        anyhow::bail!(
            "--dry-run reads the input's header from a file; it cannot read `-` (standard input)"
        );
    }
    let rows = preview(job, &args.input).map_err(explain)?;
    if !is_stdio(&args.output) {
        check_destination(&args.output, &args.write_options()).map_err(explain)?;
    }
    let cast_n = rows.iter().filter(|r| r.action.is_ok()).count();
    let bytes_in: u64 = rows.iter().map(|r| r.bytes_in).sum();
    let bytes_out: u64 = rows.iter().map(|r| r.bytes_out).sum();
    let mut notes = Vec::new();
    if args.fail_on_nan {
        notes.push(
            "--fail-on-nan is checked while the data is cast; the dry run reads no data, so the run may still fail it"
                .to_string(),
        );
    }
    if cast_n == 0 {
        notes.push(format!(
            "no tensor would be cast: all {} tensor(s) would be copied unchanged; --fail-on-empty makes this an error",
            rows.len()
        ));
    }
    if args.json {
        let doc = dry_run_json(
            &args.input,
            &args.output,
            &rows,
            [bytes_in, bytes_out],
            &notes,
            &keep_reason,
        );
        emit(&format!("{doc}\n"))?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut table = vec![[
        "tensor".to_string(),
        "dtype".into(),
        "action".into(),
        "shape".into(),
        "bytes in".into(),
        "bytes out".into(),
    ]];
    for r in &rows {
        table.push([
            r.name.clone(),
            r.dtype.clone(),
            preview_action(r, &keep_reason),
            shape_str(&r.shape),
            r.bytes_in.to_string(),
            r.bytes_out.to_string(),
        ]);
    }
    let mut text = align(&table, 4);
    text.push_str(&format!(
        "dry run: would cast {cast_n} of {} tensor(s), {bytes_in} -> {bytes_out} bytes of data; nothing written to {}\n",
        rows.len(),
        args.output.display()
    ));
    for note in &notes {
        text.push_str(&format!("note: {note}\n"));
    }
    emit(&text)?;
    Ok(ExitCode::SUCCESS)
}
