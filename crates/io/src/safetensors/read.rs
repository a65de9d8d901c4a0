//! Opening a `.safetensors` file held in memory, with messages that say how it is broken.

use std::collections::HashMap;

use safetensors::Dtype;

use super::header::{TensorEntry, header_len, parse_header};
use crate::error::IoError;

/// A parsed `.safetensors` file held in memory.
#[derive(Clone, Debug)]
pub struct SafetensorsFile<'a> {
    /// The `__metadata__` map, if the file has one.
    pub metadata: Option<HashMap<String, String>>,
    /// Tensor names in the order of their data in the file.
    pub names: Vec<String>,
    /// The tensors' header entries, in the same order.
    pub entries: Vec<TensorEntry>,
    /// The data section.
    pub data: &'a [u8],
}

/// One tensor of a [`SafetensorsFile`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TensorView<'a> {
    /// Its dtype.
    pub dtype: Dtype,
    /// Its shape as written.
    pub shape: &'a [usize],
    /// Its bytes.
    pub data: &'a [u8],
}

impl<'a> SafetensorsFile<'a> {
    /// The tensor called `name`, if the file has one.
    pub fn tensor(&self, name: &str) -> Option<TensorView<'_>> {
        let e = self.entries.iter().find(|e| e.name == name)?;
        // parse_header checked that every entry lies inside the data section.
        let data = self.data.get(e.begin as usize..e.end as usize)?;
        Some(TensorView {
            dtype: e.dtype,
            shape: &e.shape,
            data,
        })
    }
}

/// Parses a `.safetensors` file held in memory.
pub fn parse(bytes: &[u8]) -> Result<SafetensorsFile<'_>, IoError> {
    let len = header_len(bytes, bytes.len() as u64)? as usize;
    // header_len checked that the header lies inside the file.
    let data_start = 8 + len;
    let header = parse_header(&bytes[8..data_start], (bytes.len() - data_start) as u64)?;
    Ok(SafetensorsFile {
        metadata: header.metadata,
        names: header.tensors.iter().map(|t| t.name.clone()).collect(),
        entries: header.tensors,
        data: &bytes[data_start..],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(header: &str, data: usize) -> Vec<u8> {
        let mut b = (header.len() as u64).to_le_bytes().to_vec();
        b.extend_from_slice(header.as_bytes());
        b.resize(b.len() + data, 0);
        b
    }

    #[test]
    fn broken_files_are_diagnosed_with_numbers() {
        let msg = |b: &[u8]| parse(b).err().map(|e| e.to_string()).unwrap_or_default();
        assert_eq!(
            msg(&[1, 2, 3]),
            "not a .safetensors file: 3 bytes is too short for the 8-byte header length"
        );
        let mut b = 100u64.to_le_bytes().to_vec();
        b.extend_from_slice(b"{}");
        assert_eq!(
            msg(&b),
            "truncated or not a .safetensors file: the header length field says 100 bytes but only 2 bytes follow it"
        );
        let h = r#"{"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}}"#;
        assert_eq!(
            msg(&file(h, 10)),
            "truncated .safetensors file: the header describes 16 bytes of tensor data but the file holds only 10"
        );
        assert_eq!(
            msg(&file(h, 20)),
            "invalid .safetensors file: the header describes 16 bytes of tensor data but the file holds 20"
        );
        let ok = file(h, 16);
        let f = parse(&ok).unwrap();
        assert_eq!(f.names, ["a"]);
        assert_eq!(f.tensor("a").unwrap().data.len(), 16);
        assert!(f.tensor("b").is_none());
    }
}
