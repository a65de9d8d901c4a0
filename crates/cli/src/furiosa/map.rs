//! `npusim furiosa map`: evaluate a Furiosa mapping expression (the text inside the `m![...]`
//! macro of Furiosa's documentation) and print its normal form, its size and the cell at
//! every position, as text or as one JSON object.

use std::process::ExitCode;

use anyhow::{Result, bail};
use clap::Args;
use npusim_furiosa::mapping::{Axes, Final, Mapping};
use serde_json::{Map, Value, json};

use crate::output::with_stdout;

/// The worked examples and notes shown after the options in `--help`.
const MAP_EXAMPLES: &str = include_str!("map_examples.txt");

/// Options of `npusim furiosa map`.
#[derive(Debug, Args)]
#[command(after_help = MAP_EXAMPLES.trim_end())]
pub struct MapArgs {
    /// The mapping: the text inside Furiosa's `m![...]`, e.g. `A / 8, R # 4` (axis A in steps
    /// of 8, then axis R padded to 4).
    #[arg(value_name = "EXPR", allow_hyphen_values = true)]
    pub expr: String,
    /// Axis declarations `NAME=SIZE,...` (like `axes![A = 8, B = 512]`).
    #[arg(long, value_name = "A=8,B=512", default_value = "")]
    pub axes: String,
    /// Print one JSON object {"size", "display", "cells"} instead of text.
    #[arg(long)]
    pub json: bool,
    /// Refuse mappings with more positions than this (the output lists every position).
    #[arg(long, value_name = "N", default_value_t = 1 << 20)]
    pub max_cells: usize,
}

/// A finalised cell as JSON: its coordinates, or the padding kind.
fn cell_json(cell: &Final) -> Value {
    match cell {
        Final::Live(coords) => {
            let obj: Map<String, Value> = coords
                .iter()
                .map(|(axis, c)| (axis.clone(), json!(c)))
                .collect();
            Value::Object(obj)
        }
        Final::Padding(kind) => json!(kind.name()),
        Final::OutOfBounds => json!("out of bounds"),
    }
}

/// Runs `npusim furiosa map`.
pub fn run(args: MapArgs) -> Result<ExitCode> {
    let axes = if args.axes.trim().is_empty() {
        Axes::new()
    } else {
        Axes::parse(&args.axes)?
    };
    let mapping = Mapping::parse(&args.expr, &axes)?;
    let size = mapping.size();
    if size > args.max_cells {
        bail!(
            "`{mapping}` has {size} positions, more than --max-cells {}; raise it to list them all",
            args.max_cells
        );
    }
    // Cells are written as they are produced: memory does not grow with the cell count.
    let mut cells = mapping.evaluator();
    with_stdout(|w| {
        if args.json {
            // Keys in sorted order, as serde_json writes an object.
            w.write_all(b"{\"cells\":[")?;
            for p in 0..size {
                if p > 0 {
                    w.write_all(b",")?;
                }
                serde_json::to_writer(&mut *w, &cell_json(&cells.cell(p)))?;
            }
            w.write_all(b"],\"display\":")?;
            serde_json::to_writer(&mut *w, &mapping.to_string())?;
            writeln!(w, ",\"size\":{size}}}")
        } else {
            writeln!(w, "mapping:    {mapping}")?;
            writeln!(w, "normalised: {}", mapping.normalize())?;
            writeln!(w, "size:       {size}")?;
            let width = size.saturating_sub(1).to_string().len();
            for p in 0..size {
                writeln!(w, "{p:>width$}: {}", cells.cell(p))?;
            }
            Ok(())
        }
    })?;
    Ok(ExitCode::SUCCESS)
}
