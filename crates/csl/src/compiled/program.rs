//! A whole compiled program: the evaluated layout, each PE's compiled program, the
//! placement on the fabric, and the sources it came from; loaded onto one simulator.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use npusim_cerebras::ElemTy;
use npusim_cerebras::sched::Sim;

use super::error::CompileError;
use super::placement::Placement;
use super::routes;
use crate::comptime::{Arch, ComptimeConfig, Layout, Value, evaluate_layout};
use crate::pe::{LoadedPe, PeProgram, load};
use crate::sdk::{
    CMD_STREAM_ARRAY, COORD_ARRAY, DEBUG_ARRAY, DEBUG_WORDS, RANDOM_ARRAY, RANDOM_START,
};
use crate::source::SourceFile;

/// A PE program already compiled for a file and its params.
type CachedTile = (String, Vec<(String, Value)>, Arc<PeProgram>);

/// What the compiler is asked for (the SDK compiler's arguments).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CompileOptions {
    /// `--arch`.
    pub arch: Arch,
    /// `--params`: the layout's param values.
    pub params: Vec<(String, Value)>,
    /// `--fabric-dims`.
    pub fabric_dims: Option<(u32, u32)>,
    /// `--fabric-offsets`.
    pub fabric_offsets: Option<(u32, u32)>,
    /// `--memcpy`: the program uses the memcpy infrastructure.
    pub memcpy: bool,
    /// `--channels`: the memcpy I/O channels (recorded; the native memcpy needs none).
    pub channels: Option<u32>,
}

/// The simulator's architecture of a CSL target.
pub fn sim_arch(a: Arch) -> npusim_cerebras::Arch {
    match a {
        Arch::Wse2 => npusim_cerebras::Arch::Wse2,
        Arch::Wse3 => npusim_cerebras::Arch::Wse3,
    }
}

/// A compiled whole program.
#[derive(Clone, Debug)]
pub struct CompiledProgram {
    /// How it was compiled.
    pub options: CompileOptions,
    /// The layout file's name.
    pub layout_file: String,
    /// Every source file by name: the layout and each PE program.
    pub sources: BTreeMap<String, String>,
    /// The evaluated layout.
    pub layout: Layout,
    /// The rectangle `(width, height)`.
    pub rectangle: (u32, u32),
    /// Where the rectangle sits on the fabric.
    pub placement: Placement,
    /// Each PE's compiled program, by `(x, y)` in the rectangle.
    pub tiles: BTreeMap<(u32, u32), Arc<PeProgram>>,
}

/// A compiled program loaded onto a simulator of its rectangle.
pub struct LoadedProgram {
    /// The simulator.
    pub sim: Sim,
    /// Each PE's loaded program, by `(x, y)`.
    pub pes: BTreeMap<(u32, u32), LoadedPe>,
}

impl std::fmt::Debug for LoadedProgram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoadedProgram")
            .field("pes", &self.pes)
            .finish_non_exhaustive()
    }
}

impl CompiledProgram {
    /// Compiles the program whose layout is `layout_file` among `sources` (file name to
    /// text; the layout's `@set_tile_code` files are looked up there).
    pub fn compile(
        layout_file: &str,
        sources: BTreeMap<String, String>,
        options: CompileOptions,
    ) -> Result<CompiledProgram, CompileError> {
        let layout_text = sources
            .get(layout_file)
            .ok_or_else(|| CompileError::OutDir {
                path: layout_file.into(),
                why: "the layout file is not among the sources".into(),
            })?;
        let config = ComptimeConfig {
            arch: options.arch,
            params: options.params.clone(),
        };
        let layout = evaluate_layout(&SourceFile::new(layout_file, layout_text), &config)?;
        let rectangle = layout
            .rectangle
            .ok_or_else(|| CompileError::NoRectangle(layout_file.to_string()))?;
        let placement = Placement::new(
            sim_arch(options.arch),
            rectangle,
            options.fabric_dims,
            options.fabric_offsets,
            options.memcpy,
        )?;
        let mut cache: Vec<CachedTile> = Vec::new();
        let mut tiles = BTreeMap::new();
        for y in 0..rectangle.1 {
            for x in 0..rectangle.0 {
                let Some(tile) = layout.tiles.get(&(x, y)) else {
                    return Err(CompileError::NoCode {
                        x,
                        y,
                        width: rectangle.0,
                        height: rectangle.1,
                    });
                };
                if let Some((_, _, p)) = cache
                    .iter()
                    .find(|(f, ps, _)| *f == tile.file && *ps == tile.params)
                {
                    tiles.insert((x, y), p.clone());
                    continue;
                }
                let text = sources
                    .get(&tile.file)
                    .ok_or_else(|| CompileError::MissingFile {
                        layout: layout_file.to_string(),
                        x,
                        y,
                        file: tile.file.clone(),
                    })?;
                let program = Arc::new(PeProgram::compile_with_modules(
                    &SourceFile::new(&tile.file, text),
                    &ComptimeConfig {
                        arch: options.arch,
                        params: tile.params.clone(),
                    },
                    &|name| sources.get(name).cloned(),
                )?);
                cache.push((tile.file.clone(), tile.params.clone(), program.clone()));
                tiles.insert((x, y), program);
            }
        }
        Ok(CompiledProgram {
            options,
            layout_file: layout_file.to_string(),
            sources,
            layout,
            rectangle,
            placement,
            tiles,
        })
    }

    /// Compiles the layout at `layout_path`, reading it and the PE programs it names from
    /// its directory.
    pub fn compile_files(
        layout_path: &Path,
        options: CompileOptions,
    ) -> Result<CompiledProgram, CompileError> {
        let read = |p: &Path| {
            std::fs::read_to_string(p).map_err(|source| CompileError::Read {
                path: p.to_path_buf(),
                source,
            })
        };
        let dir = layout_path.parent().unwrap_or(Path::new(""));
        let layout_file = layout_path
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        let layout_text = read(layout_path)?;
        let config = ComptimeConfig {
            arch: options.arch,
            params: options.params.clone(),
        };
        let layout = evaluate_layout(&SourceFile::new(&layout_file, &layout_text), &config)?;
        let mut sources = BTreeMap::new();
        sources.insert(layout_file.clone(), layout_text);
        // the tiles' files, then the own modules they import (and those import), each once
        let mut pending: Vec<(String, bool)> = layout
            .tiles
            .values()
            .map(|t| (t.file.clone(), false))
            .collect();
        while let Some((file, module)) = pending.pop() {
            let path = dir.join(&file);
            // a module that is missing or not a plain name is named at its import
            let skip = module && (file.contains(['/', '\\']) || !path.is_file());
            if sources.contains_key(&file) || skip {
                continue;
            }
            let text = read(&path)?;
            pending.extend(
                crate::link::own_imports(&text)
                    .into_iter()
                    .map(|m| (m, true)),
            );
            sources.insert(file, text);
        }
        CompiledProgram::compile(&layout_file, sources, options)
    }

    /// A simulator of the rectangle with every PE's program loaded at its place, every
    /// route set, and the SDK's per-PE state (command stream, coordinates, random generator) declared after
    /// each program's own memory.
    pub fn load(&self) -> Result<LoadedProgram, CompileError> {
        let (w, h) = self.rectangle;
        let mut sim = Sim::new(sim_arch(self.options.arch), w, h)?;
        let mut pes = BTreeMap::new();
        for (&(x, y), program) in &self.tiles {
            let (px, py) = (i64::from(x), i64::from(y));
            let loaded = load(program, &mut sim, px, py)?;
            let mem_err = |source| {
                CompileError::Pe(crate::pe::PeError::Memory {
                    x: px,
                    y: py,
                    source,
                })
            };
            let pe = sim.pe_mut(px, py)?;
            pe.mem
                .declare(CMD_STREAM_ARRAY, ElemTy::U32, &[1])
                .map_err(mem_err)?;
            pe.mem
                .declare(COORD_ARRAY, ElemTy::U16, &[2])
                .map_err(mem_err)?;
            pe.mem
                .write(COORD_ARRAY, &[x as u16, y as u16])
                .map_err(mem_err)?;
            pe.mem
                .declare(RANDOM_ARRAY, ElemTy::U32, &[1])
                .map_err(mem_err)?;
            pe.mem
                .declare(
                    crate::sdk::LAUNCH_ARGS_ARRAY,
                    ElemTy::U32,
                    &[crate::sdk::LAUNCH_ARGS_WORDS as u64],
                )
                .map_err(mem_err)?;
            pe.mem
                .write(RANDOM_ARRAY, &[RANDOM_START])
                .map_err(mem_err)?;
            // the print buffer only where the program imports <simprint>
            if program.source().text().contains("\"<simprint>\"") {
                pe.mem
                    .declare(
                        crate::sdk::simprint::SIMPRINT_ARRAY,
                        ElemTy::U16,
                        &[crate::sdk::simprint::SIMPRINT_WORDS as u64],
                    )
                    .map_err(mem_err)?;
            }
            // the trace buffer only where the program imports <debug>
            if program.source().text().contains("\"<debug>\"") {
                pe.mem
                    .declare(DEBUG_ARRAY, ElemTy::U32, &[DEBUG_WORDS as u64])
                    .map_err(mem_err)?;
            }
            pes.insert((x, y), loaded);
        }
        for (&(x, y), colors) in &self.layout.routes {
            for (&color, route) in colors {
                routes::apply(&mut sim, x, y, color, route)?;
            }
        }
        Ok(LoadedProgram { sim, pes })
    }
}
