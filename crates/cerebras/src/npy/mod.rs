//! PE arrays as `.npy` files (issue item 1), through `npusim-io`'s reader and writer: an
//! array writes as a little-endian, row-major file of its element type and shape; a file
//! reads into an array of the same type and shape, or declares a new one.

mod error;

use std::borrow::Cow;
use std::path::Path;

use npusim_io::npy::{NpyArray, element_format, elements, parse, write};
use npusim_io::{Elements, write_atomic};
use npusim_numerics::Storage;

pub use error::NpyError;

use crate::dsd::Base;
use crate::elem::ElemTy;
use crate::memory::PeMemory;

/// The element type of a parsed file, if a PE array can hold it.
fn elem_of(path: &Path, file: &NpyArray<'_>) -> Result<ElemTy, NpyError> {
    let format = element_format(file, None)?;
    ElemTy::ALL
        .into_iter()
        .find(|t| t.format() == format)
        .ok_or_else(|| NpyError::Unsupported {
            path: path.to_path_buf(),
            descr: file.descr.clone(),
        })
}

/// The file's data as little-endian element bytes (big-endian files swapped).
fn data(path: &Path, file: &NpyArray<'_>, ty: ElemTy) -> Result<Vec<u8>, NpyError> {
    if file.fortran {
        return Err(NpyError::Fortran {
            path: path.to_path_buf(),
        });
    }
    Ok(elements(file, ty.format(), &file.shape, false)?
        .bytes
        .into_owned())
}

impl PeMemory {
    /// The array as the bytes of a `.npy` file.
    pub fn to_npy(&self, name: &str) -> Result<Vec<u8>, NpyError> {
        let a = self.array(name)?.clone();
        let e = Elements {
            storage: Storage::native(a.elem.format()),
            count: a.elements() as usize,
            bytes: Cow::Owned(self.array_bytes(name)?),
        };
        let shape: Vec<usize> = a.shape.iter().map(|&d| d as usize).collect();
        let mut out = Vec::new();
        write(&mut out, &e, &shape, false, false)?;
        Ok(out)
    }

    /// Writes the array to `path` as `.npy` (through a temporary file and a rename).
    pub fn save_npy(&self, name: &str, path: &Path) -> Result<(), NpyError> {
        let bytes = self.to_npy(name)?;
        write_atomic(path, |w| {
            w.write_all(&bytes).map_err(npusim_io::IoError::from)
        })?;
        Ok(())
    }

    /// Sets a declared array from `.npy` bytes (`path` names them in errors): the file's
    /// element type and shape must be the array's.
    pub fn load_npy_bytes(
        &mut self,
        name: &str,
        path: &Path,
        bytes: &[u8],
    ) -> Result<(), NpyError> {
        let a = self.array(name)?.clone();
        let file = parse(bytes)?;
        let ty = elem_of(path, &file)?;
        if ty != a.elem {
            return Err(NpyError::Dtype {
                path: path.to_path_buf(),
                array: name.to_string(),
                found: file.descr.clone(),
                expected: a.elem,
            });
        }
        if !file
            .shape
            .iter()
            .map(|&d| d as u64)
            .eq(a.shape.iter().copied())
        {
            return Err(NpyError::Shape {
                path: path.to_path_buf(),
                array: name.to_string(),
                found: file.shape.clone(),
                expected: a.shape.clone(),
            });
        }
        let data = data(path, &file, ty)?;
        Ok(self.set_array_bytes(name, &data)?)
    }

    /// Sets a declared array from the `.npy` file at `path`.
    pub fn load_npy(&mut self, name: &str, path: &Path) -> Result<(), NpyError> {
        let bytes = read(path)?;
        self.load_npy_bytes(name, path, &bytes)
    }

    /// Declares an array with the element type and shape of the `.npy` file at `path`, holding
    /// its values.
    pub fn declare_npy(&mut self, name: &str, path: &Path) -> Result<Base, NpyError> {
        let bytes = read(path)?;
        let file = parse(&bytes)?;
        let ty = elem_of(path, &file)?;
        let data = data(path, &file, ty)?;
        let shape: Vec<u64> = file.shape.iter().map(|&d| d as u64).collect();
        let base = self.declare(name, ty, &shape)?;
        self.set_array_bytes(name, &data)?;
        Ok(base)
    }
}

fn read(path: &Path) -> Result<Vec<u8>, NpyError> {
    std::fs::read(path).map_err(|source| NpyError::File {
        path: path.to_path_buf(),
        source,
    })
}
