//! Opening a `.safetensors` file held in memory, with messages that say how it is broken.

use std::collections::HashMap;

use safetensors::{SafeTensorError, SafeTensors};

use crate::error::IoError;

/// A parsed `.safetensors` file.
pub struct SafetensorsFile<'a> {
    /// The `__metadata__` map, if the file has one.
    pub metadata: Option<HashMap<String, String>>,
    /// Tensor names in the order of their data in the file.
    pub names: Vec<String>,
    /// The tensors.
    pub tensors: SafeTensors<'a>,
}

/// Parses a `.safetensors` file held in memory.
pub fn parse(bytes: &[u8]) -> Result<SafetensorsFile<'_>, IoError> {
    let (_, header) = SafeTensors::read_metadata(bytes).map_err(|e| diagnose(bytes, e))?;
    let tensors = SafeTensors::deserialize(bytes).map_err(|e| diagnose(bytes, e))?;
    Ok(SafetensorsFile {
        metadata: header.metadata().clone(),
        names: header.offset_keys(),
        tensors,
    })
}

/// A clearer error for the common ways a `.safetensors` file is broken.
fn diagnose(bytes: &[u8], e: SafeTensorError) -> IoError {
    let Some(len_field) = bytes.first_chunk::<8>() else {
        return IoError::SafetensorsTooShort { len: bytes.len() };
    };
    let header_len = u64::from_le_bytes(*len_field);
    let after = (bytes.len() - 8) as u64;
    if header_len > after {
        return IoError::SafetensorsHeaderCut { header_len, after };
    }
    if let SafeTensorError::MetadataIncompleteBuffer = e {
        let held = after - header_len;
        // header_len <= after, so the header lies inside the buffer.
        let header = &bytes[8..8 + header_len as usize];
        return match declared_data_len(header) {
            Some(declared) if declared > held => IoError::SafetensorsDataCut { declared, held },
            Some(declared) => IoError::SafetensorsDataSize { declared, held },
            None => IoError::SafetensorsInvalid(e),
        };
    }
    IoError::SafetensorsInvalid(e)
}

/// The end of the last tensor's data according to a safetensors JSON header.
fn declared_data_len(header: &[u8]) -> Option<u64> {
    let v: serde_json::Value = serde_json::from_slice(header).ok()?;
    v.as_object()?
        .iter()
        .filter(|(k, _)| k.as_str() != "__metadata__")
        .filter_map(|(_, t)| t.get("data_offsets")?.get(1)?.as_u64())
        .max()
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
        let ok = file(h, 16);
        let f = parse(&ok).unwrap();
        assert_eq!(f.names, ["a"]);
        assert_eq!(declared_data_len(h.as_bytes()), Some(16));
    }
}
