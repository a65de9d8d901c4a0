//! `npusim furiosa map`: evaluate a Furiosa mapping expression (m-notation) and print its normal
//! form, its size and the cell at every position, as text or as one JSON object.

use std::process::ExitCode;

use anyhow::{Result, bail};
use clap::{Args, Subcommand};
use npusim_furiosa::mapping::{Axes, Final, Mapping};
use serde_json::{Map, Value, json};

const MAP_EXAMPLES: &str = "\
Examples:
  npusim furiosa map 'A, B' --axes A=8,B=512
  npusim furiosa map 'B / 64, B % 32, B / 32 % 2' --axes B=512 --json
  npusim furiosa map 'A #{0} 4, B #{!} 4' --axes A=3,B=3

Cells are finalised: axis coordinates with zeros left out ({} is the live cell at the origin),
or the padding kind top, zero or bottom; a cell whose coordinate overshoots its axis (a split
of a padded axis) is top.";

/// `npusim furiosa ...`
#[derive(Debug, Args)]
pub struct FuriosaArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: FuriosaCommand,
}

/// Subcommands of `npusim furiosa`.
#[derive(Debug, Subcommand)]
pub enum FuriosaCommand {
    /// Evaluate a mapping expression: normal form, size and the cell of every position.
    Map(MapArgs),
}

/// Options of `npusim furiosa map`.
#[derive(Debug, Args)]
#[command(after_help = MAP_EXAMPLES)]
pub struct MapArgs {
    /// The mapping in m-notation, e.g. `A / 8, R # 4`.
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

/// Runs `npusim furiosa ...`.
pub fn run(args: FuriosaArgs) -> Result<ExitCode> {
    match args.command {
        FuriosaCommand::Map(a) => map(a),
    }
}

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

fn map(args: MapArgs) -> Result<ExitCode> {
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
    if args.json {
        let cells: Vec<Value> = (0..size).map(|p| cell_json(&mapping.cell(p))).collect();
        let out = json!({
            "size": size,
            "display": mapping.to_string(),
            "cells": cells,
        });
        println!("{out}");
    } else {
        println!("mapping:    {mapping}");
        println!("normalised: {}", mapping.normalize());
        println!("size:       {size}");
        let width = size.saturating_sub(1).to_string().len();
        for p in 0..size {
            println!("{p:>width$}: {}", mapping.cell(p));
        }
    }
    Ok(ExitCode::SUCCESS)
}
