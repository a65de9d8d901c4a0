//! A DM tensor to and from `.npy`: one array per logical tensor (`docs/furiosa-engines.md`
//! §2.2, decision ".npy").

use std::path::Path;

use npusim_io::{Elements, IoError, npy, write_atomic};
use npusim_numerics::{Layout, Storage};

use super::{Dm, DmError, DmTensor};

impl DmTensor {
    /// Loads the `.npy` file at `path` (shape = the logical shape in `order`, elements of the
    /// tensor's type in `npusim-io`'s conventions) into DM, as [`DmTensor::write_logical`].
    pub fn load_npy(&self, dm: &mut Dm, path: &Path, order: &[&str]) -> Result<(), DmError> {
        let io = |source: IoError| DmError::Io {
            path: path.to_path_buf(),
            source: Box::new(source),
        };
        let shape = self.logical_shape(order)?;
        let bytes = std::fs::read(path).map_err(|e| io(IoError::from(e)))?;
        let array = npy::parse(&bytes).map_err(io)?;
        let format = self.dtype().format();
        match npy::element_format(&array, None) {
            Ok(f) if f == format => {}
            Ok(f) => {
                return Err(DmError::NpyDtype {
                    path: path.to_path_buf(),
                    found: f.to_string(),
                    dtype: self.dtype().name(),
                });
            }
            Err(_) => {
                return Err(DmError::NpyDtype {
                    path: path.to_path_buf(),
                    found: format!("numpy `{}`", array.descr),
                    dtype: self.dtype().name(),
                });
            }
        }
        if array.shape != shape {
            return Err(DmError::NpyShape {
                path: path.to_path_buf(),
                found: array.shape.clone(),
                expected: shape,
            });
        }
        let e = npy::elements(&array, format, &shape, false).map_err(io)?;
        let codes: Vec<u64> = (0..e.count).map(|i| e.storage.read(&e.bytes, i)).collect();
        self.write_logical(dm, order, &codes)
    }

    /// Saves the logical tensor (as [`DmTensor::read_logical`]) to `path` as `.npy`, through
    /// the atomic writer (nothing is written when the tensor cannot be read).
    pub fn save_npy(&self, dm: &Dm, path: &Path, order: &[&str]) -> Result<(), DmError> {
        let io = |source: IoError| DmError::Io {
            path: path.to_path_buf(),
            source: Box::new(source),
        };
        let shape = self.logical_shape(order)?;
        let codes = self.read_logical(dm, order)?;
        let format = self.dtype().format();
        let storage = Storage::new(format, Layout::Unpacked).unwrap_or(Storage::native(format));
        let mut bytes = vec![0u8; storage.bytes_for(codes.len())];
        for (i, &c) in codes.iter().enumerate() {
            storage.write(&mut bytes, i, c);
        }
        let elements = Elements {
            storage,
            count: codes.len(),
            bytes: bytes.into(),
        };
        let mut file = Vec::new();
        npy::write(&mut file, &elements, &shape, false, false).map_err(io)?;
        write_atomic(path, |w| w.write_all(&file).map_err(IoError::from)).map_err(io)
    }
}
