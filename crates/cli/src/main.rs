//! The `npusim` command-line tool.

fn main() {}
