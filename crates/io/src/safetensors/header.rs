//! The `.safetensors` header, parsed and written by npusim itself: duplicate names are seen
//! (a JSON map read entry by entry), and every fault names the tensor, the field and the
//! numbers.
//!
//! Layout: an 8-byte little-endian header length, the JSON header (an object whose keys are
//! tensor names plus an optional `__metadata__` map of strings; each tensor has `dtype`,
//! `shape` and `data_offsets` `[begin, end]` relative to the data section), then the data,
//! every tensor's bytes contiguous and in offset order.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::hash::{BuildHasher, RandomState};
use std::io::Write;

use safetensors::Dtype;
use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::Value;

use crate::elements::element_count;
use crate::error::IoError;

/// Largest header npusim reads (the `safetensors` crate's limit too).
pub const MAX_HEADER_BYTES: u64 = 100_000_000;

/// Key of the metadata map.
const METADATA_KEY: &str = "__metadata__";

/// One tensor of a parsed header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorEntry {
    /// The tensor's name.
    pub name: String,
    /// Its dtype.
    pub dtype: Dtype,
    /// Its shape as written.
    pub shape: Vec<usize>,
    /// Start of its bytes in the data section.
    pub begin: u64,
    /// End (exclusive) of its bytes in the data section.
    pub end: u64,
}

impl TensorEntry {
    /// Bytes of data.
    pub fn len(&self) -> u64 {
        self.end - self.begin
    }

    /// Whether the tensor has no bytes.
    pub fn is_empty(&self) -> bool {
        self.end == self.begin
    }
}

/// A parsed and checked header.
#[derive(Clone, Debug, Default)]
pub struct Header {
    /// `__metadata__`, if present.
    pub metadata: Option<HashMap<String, String>>,
    /// The tensors in the order of their data.
    pub tensors: Vec<TensorEntry>,
}

/// The header length a file's first 8 bytes give, checked against the file's length.
pub fn header_len(file: &[u8], file_len: u64) -> Result<u64, IoError> {
    let Some(field) = file.first_chunk::<8>() else {
        return Err(IoError::SafetensorsTooShort {
            len: usize::try_from(file_len).unwrap_or(usize::MAX),
        });
    };
    let header_len = u64::from_le_bytes(*field);
    let after = file_len.saturating_sub(8);
    if header_len > after {
        return Err(IoError::SafetensorsHeaderCut { header_len, after });
    }
    if header_len > MAX_HEADER_BYTES {
        return Err(IoError::SafetensorsHeaderTooLarge {
            header_len,
            max: MAX_HEADER_BYTES,
        });
    }
    Ok(header_len)
}

/// A JSON object read entry by entry, duplicates kept (the `__metadata__` map).
struct Entries(Vec<(String, Value)>);

impl<'de> Deserialize<'de> for Entries {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct EntriesVisitor;
        impl<'de> Visitor<'de> for EntriesVisitor {
            type Value = Entries;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entries, A::Error> {
                let mut out = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    out.push((key, map.next_value::<Value>()?));
                }
                Ok(Entries(out))
            }
        }
        d.deserialize_map(EntriesVisitor)
    }
}

/// The top-level JSON object, each tensor entry checked and kept as a [`TensorEntry`] as soon
/// as it is read (its JSON value is dropped at once), so that a header of a million tensors
/// costs about its own size, not a JSON tree of it. The first fault (a duplicate name, a
/// faulty entry), in the order of the file, is kept; the rest of the object is still read
/// (without being kept) so that a JSON syntax error anywhere comes first, as for a reader
/// that parses the whole text before checking it.
struct Collected {
    metadata: Option<HashMap<String, String>>,
    tensors: Vec<TensorEntry>,
    fault: Option<IoError>,
}

impl<'de> Deserialize<'de> for Collected {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct CollectedVisitor;
        impl<'de> Visitor<'de> for CollectedVisitor {
            type Value = Collected;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Collected, A::Error> {
                let mut out = Collected {
                    metadata: None,
                    tensors: Vec::new(),
                    fault: None,
                };
                let mut names = NameSet::default();
                while let Some(key) = map.next_key::<String>()? {
                    if key == METADATA_KEY {
                        // Read entry by entry too, to see duplicate keys.
                        let inner: Entries = map.next_value()?;
                        if out.fault.is_some() {
                            continue;
                        }
                        if out.metadata.is_some() {
                            out.fault = Some(IoError::SafetensorsDuplicate { name: key });
                            continue;
                        }
                        match metadata(inner) {
                            Ok(m) => out.metadata = Some(m),
                            Err(e) => out.fault = Some(e),
                        }
                        continue;
                    }
                    if out.fault.is_some() {
                        map.next_value::<IgnoredAny>()?;
                        continue;
                    }
                    if names.contains(&key, &out.tensors) {
                        out.fault = Some(IoError::SafetensorsDuplicate { name: key });
                        map.next_value::<IgnoredAny>()?;
                        continue;
                    }
                    let value: Value = map.next_value()?;
                    match tensor(key, &value) {
                        Ok(t) => {
                            names.insert(&t.name, out.tensors.len());
                            out.tensors.push(t);
                        }
                        Err(e) => out.fault = Some(e),
                    }
                }
                Ok(out)
            }
        }
        d.deserialize_map(CollectedVisitor)
    }
}

/// The tensor names seen so far, as 64-bit hashes pointing at their entry (8 + 4 bytes a
/// name, not a second copy of it); a hash seen before is checked against the name itself.
#[derive(Default)]
struct NameSet {
    hasher: RandomState,
    first: HashMap<u64, u32>,
    /// Whether two different names have had the same hash (then a hit is checked by a scan).
    collided: bool,
}

impl NameSet {
    /// Whether `name` is the name of one of `tensors` (the entries inserted so far).
    fn contains(&mut self, name: &str, tensors: &[TensorEntry]) -> bool {
        let Some(&at) = self.first.get(&self.hasher.hash_one(name)) else {
            return false;
        };
        if tensors.get(at as usize).is_some_and(|t| t.name == name) {
            return true;
        }
        self.collided = true;
        tensors.iter().any(|t| t.name == name)
    }

    /// Records `name` as the name of entry `at`.
    fn insert(&mut self, name: &str, at: usize) {
        let at = u32::try_from(at).unwrap_or(u32::MAX);
        self.first.entry(self.hasher.hash_one(name)).or_insert(at);
    }
}

/// Parses and checks the JSON header `json` of a file whose data section has `data_len` bytes.
pub fn parse_header(json: &[u8], data_len: u64) -> Result<Header, IoError> {
    checked(serde_json::from_slice(json), data_len)
}

/// [`parse_header`] for a header read from `json` as it is parsed (the text is never held
/// whole in memory); `json` must end where the header ends.
pub fn parse_header_from(json: impl std::io::Read, data_len: u64) -> Result<Header, IoError> {
    checked(serde_json::from_reader(json), data_len)
}

/// The header of a parsed JSON object, checked against a data section of `data_len` bytes.
fn checked(parsed: Result<Collected, serde_json::Error>, data_len: u64) -> Result<Header, IoError> {
    let collected = parsed.map_err(|e| IoError::SafetensorsHeaderJson {
        reason: e.to_string(),
    })?;
    if let Some(fault) = collected.fault {
        return Err(fault);
    }
    let mut header = Header {
        metadata: collected.metadata,
        tensors: collected.tensors,
    };
    header.tensors.shrink_to_fit();
    header.tensors.sort_by_key(|t| (t.begin, t.end));
    let mut at = 0u64;
    for t in &header.tensors {
        if t.begin != at {
            return Err(IoError::SafetensorsGap {
                name: t.name.clone(),
                begin: t.begin,
                expected: at,
            });
        }
        at = t.end;
    }
    if at > data_len {
        return Err(IoError::SafetensorsDataCut {
            declared: at,
            held: data_len,
        });
    }
    if at != data_len {
        return Err(IoError::SafetensorsDataSize {
            declared: at,
            held: data_len,
        });
    }
    Ok(header)
}

/// The `__metadata__` entries, every value a string.
fn metadata(entries: Entries) -> Result<HashMap<String, String>, IoError> {
    let mut out = HashMap::new();
    for (k, v) in entries.0 {
        let Value::String(v) = v else {
            return Err(IoError::SafetensorsMetadataValue {
                key: k,
                value: v.to_string(),
            });
        };
        if out.insert(k.clone(), v).is_some() {
            return Err(IoError::SafetensorsDuplicateMetadata { key: k });
        }
    }
    Ok(out)
}

/// A field fault of tensor `name`.
fn field(name: &str, field: &'static str, problem: String) -> IoError {
    IoError::SafetensorsField {
        name: name.to_string(),
        field,
        problem,
    }
}

/// One tensor entry, checked: a known dtype, a shape of integers, offsets that hold exactly
/// the shape's bytes.
fn tensor(name: String, value: &Value) -> Result<TensorEntry, IoError> {
    let Value::Object(obj) = value else {
        return Err(IoError::SafetensorsEntry {
            name,
            value: value.to_string(),
        });
    };
    let dtype_value = obj
        .get("dtype")
        .ok_or_else(|| field(&name, "dtype", "is missing".to_string()))?;
    let dtype: Dtype = match dtype_value {
        Value::String(s) => serde_json::from_value(dtype_value.clone()).map_err(|_| {
            field(
                &name,
                "dtype",
                format!("is `{s}`, which is no safetensors dtype (F64, F32, F16, BF16, F8_E4M3, F8_E5M2, F8_E8M0, F4, I64, I32, I16, I8, U64, U32, U16, U8, BOOL, ...)"),
            )
        })?,
        other => return Err(field(&name, "dtype", format!("must be a string, not {other}"))),
    };
    let shape_value = obj
        .get("shape")
        .ok_or_else(|| field(&name, "shape", "is missing".to_string()))?;
    let shape: Vec<usize> = shape_value
        .as_array()
        .and_then(|dims| {
            dims.iter()
                .map(|d| d.as_u64().and_then(|d| usize::try_from(d).ok()))
                .collect()
        })
        .ok_or_else(|| {
            field(
                &name,
                "shape",
                format!("must be a list of non-negative integers, not {shape_value}"),
            )
        })?;
    let offsets_value = obj
        .get("data_offsets")
        .ok_or_else(|| field(&name, "data_offsets", "is missing".to_string()))?;
    let (begin, end) = match offsets_value.as_array().map(Vec::as_slice) {
        Some([b, e]) => match (b.as_u64(), e.as_u64()) {
            (Some(b), Some(e)) => (b, e),
            _ => (u64::MAX, 0),
        },
        _ => (u64::MAX, 0),
    };
    if begin == u64::MAX && end == 0 {
        return Err(field(
            &name,
            "data_offsets",
            format!("must be two non-negative integers [begin, end], not {offsets_value}"),
        ));
    }
    if begin > end {
        return Err(field(
            &name,
            "data_offsets",
            format!("[{begin}, {end}] begins after it ends"),
        ));
    }
    let count = element_count(&shape).map_err(|e| e.in_tensor(&name))?;
    let bits = (count as u128) * (dtype.bitsize() as u128);
    let held = end - begin;
    if !bits.is_multiple_of(8) || bits / 8 != u128::from(held) {
        return Err(IoError::SafetensorsTensorBytes {
            name,
            dtype,
            shape,
            count: count as u64,
            bits: bits.min(u128::from(u64::MAX)) as u64,
            begin,
            end,
        });
    }
    Ok(TensorEntry {
        name,
        dtype,
        shape,
        begin,
        end,
    })
}

/// One tensor of an output header: name, dtype, header shape, bytes of data.
#[derive(Clone, Copy, Debug)]
pub struct EntryOut<'a> {
    /// The name.
    pub name: &'a str,
    /// The dtype.
    pub dtype: Dtype,
    /// The header shape.
    pub shape: &'a [usize],
    /// Bytes of data.
    pub len: u64,
}

/// The order in which npusim (like the `safetensors` crate) lays out tensor data: widest dtype
/// first, then by name, so that every tensor starts on a multiple of its element size.
pub fn layout_key(name: &str, dtype: Dtype) -> (std::cmp::Reverse<Dtype>, String) {
    (std::cmp::Reverse(dtype), name.to_string())
}

/// The header bytes (length field, JSON padded with spaces to a multiple of 8) of a file
/// holding `tensors` in this order and `metadata`, written with its keys sorted.
pub fn header_bytes(
    tensors: &[EntryOut<'_>],
    metadata: Option<&HashMap<String, String>>,
) -> Vec<u8> {
    let mut out = Vec::new();
    // Writing to a vector cannot fail, and the tensors are given as they are.
    let _ = write_header(&mut out, metadata, |entry| {
        tensors.iter().try_for_each(|t| entry(*t))
    });
    out
}

/// Writes the header of a file holding the tensors `each` gives and `metadata` to `out`, in
/// pieces (never whole in memory): the 8-byte length field, then the JSON text, keys sorted,
/// each tensor's data following the one before it, padded with spaces to a multiple of 8.
/// `each` hands every tensor, in output order, to the function it is given; it is called
/// twice (once to measure the text, whose length comes first) and must give the same
/// tensors both times.
pub fn write_header<W: Write + ?Sized>(
    out: &mut W,
    metadata: Option<&HashMap<String, String>>,
    each: impl Fn(&mut dyn FnMut(EntryOut<'_>) -> Result<(), IoError>) -> Result<(), IoError>,
) -> Result<(), IoError> {
    let mut measured = Counted {
        inner: std::io::sink(),
        bytes: 0,
    };
    write_json(&mut measured, metadata, &each)?;
    let padded = measured.bytes.next_multiple_of(8);
    let mut written = Counted {
        inner: out,
        bytes: 0,
    };
    written.write_all(&padded.to_le_bytes())?;
    write_json(&mut written, metadata, &each)?;
    let text = written.bytes - 8;
    if text != measured.bytes {
        return Err(IoError::Os(std::io::Error::other(format!(
            "the header's tensors changed between its two passes ({} then {text} bytes)",
            measured.bytes
        ))));
    }
    for _ in text..padded {
        written.write_all(b" ")?;
    }
    Ok(())
}

/// A writer that counts the bytes written through it.
struct Counted<W> {
    inner: W,
    bytes: u64,
}

impl<W: Write> Write for Counted<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// The JSON text of a header (unpadded): `{"__metadata__":{...},"name":{...},...}`.
fn write_json<W: Write>(
    w: &mut W,
    metadata: Option<&HashMap<String, String>>,
    each: &impl Fn(&mut dyn FnMut(EntryOut<'_>) -> Result<(), IoError>) -> Result<(), IoError>,
) -> Result<(), IoError> {
    let json_err = |e: serde_json::Error| IoError::Os(e.into());
    w.write_all(b"{")?;
    let mut first = true;
    if let Some(m) = metadata {
        // Sorted keys: the output does not depend on hashing.
        let sorted: BTreeMap<&String, &String> = m.iter().collect();
        serde_json::to_writer(&mut *w, METADATA_KEY).map_err(json_err)?;
        w.write_all(b":")?;
        serde_json::to_writer(&mut *w, &sorted).map_err(json_err)?;
        first = false;
    }
    let mut at = 0u64;
    each(&mut |t: EntryOut<'_>| {
        if !first {
            w.write_all(b",")?;
        }
        first = false;
        // The entry's keys in sorted order, as a JSON map writes them.
        let end = at + t.len;
        serde_json::to_writer(&mut *w, t.name).map_err(json_err)?;
        write!(w, ":{{\"data_offsets\":[{at},{end}],\"dtype\":")?;
        serde_json::to_writer(&mut *w, &t.dtype).map_err(json_err)?;
        w.write_all(b",\"shape\":")?;
        serde_json::to_writer(&mut *w, t.shape).map_err(json_err)?;
        w.write_all(b"}")?;
        at = end;
        Ok(())
    })?;
    w.write_all(b"}")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(json: &str, data: u64) -> Result<Header, IoError> {
        parse_header(json.as_bytes(), data)
    }

    #[test]
    fn written_headers_parse_back_with_sorted_metadata() {
        let meta = HashMap::from([
            ("b".to_string(), "2".to_string()),
            ("a".to_string(), "1".to_string()),
            ("c".to_string(), "3".to_string()),
        ]);
        let t = [
            EntryOut {
                name: "x",
                dtype: Dtype::F32,
                shape: &[2],
                len: 8,
            },
            EntryOut {
                name: "a\"b",
                dtype: Dtype::U8,
                shape: &[3],
                len: 3,
            },
        ];
        let bytes = header_bytes(&t, Some(&meta));
        assert_eq!(bytes.len() % 8, 0);
        let json = std::str::from_utf8(&bytes[8..]).unwrap();
        assert!(
            json.starts_with(r#"{"__metadata__":{"a":"1","b":"2","c":"3"},"x":"#),
            "{json}"
        );
        let h = parse(json, 11).unwrap();
        assert_eq!(h.metadata.unwrap(), meta);
        let names: Vec<&str> = h.tensors.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["x", "a\"b"]);
        assert_eq!((h.tensors[1].begin, h.tensors[1].end), (8, 11));
        // The same input always gives the same bytes.
        assert_eq!(bytes, header_bytes(&t, Some(&meta.clone())));
    }

    #[test]
    fn duplicates_are_refused_by_name() {
        let e = |j: &str| parse(j, 4).unwrap_err().to_string();
        let entry = r#"{"dtype":"F32","shape":[1],"data_offsets":[0,4]}"#;
        assert_eq!(
            e(&format!(r#"{{"w":{entry},"w":{entry}}}"#)),
            "the .safetensors header names tensor `w` twice"
        );
        assert_eq!(
            e(&format!(
                r#"{{"__metadata__":{{"k":"1","k":"1"}},"w":{entry}}}"#
            )),
            "the .safetensors header's __metadata__ names key `k` twice"
        );
    }

    #[test]
    fn the_first_fault_in_file_order_is_reported_and_json_errors_come_first() {
        let entry = |i: u64| {
            format!(
                r#""t{i}":{{"dtype":"U8","shape":[1],"data_offsets":[{i},{}]}}"#,
                i + 1
            )
        };
        let many: Vec<String> = (0..1000).map(entry).collect();
        let ok = format!("{{{}}}", many.join(","));
        assert_eq!(parse(&ok, 1000).unwrap().tensors.len(), 1000);
        // A duplicate far from its first use, then a faulty entry: the duplicate is named.
        let dup = format!(
            r#"{{{},{},"bad":{{"dtype":"F7","shape":[1],"data_offsets":[0,1]}}}}"#,
            many.join(","),
            entry(3)
        );
        assert_eq!(
            parse(&dup, 1000).unwrap_err().to_string(),
            "the .safetensors header names tensor `t3` twice"
        );
        // A faulty entry, then broken JSON: the JSON error, as it is the file's first problem
        // for a reader that parses the whole text first.
        let broken = format!(
            r#"{{"bad":{{"dtype":"F7","shape":[1],"data_offsets":[0,1]}},{}"#,
            many.join(",")
        );
        assert!(
            parse(&broken, 1000)
                .unwrap_err()
                .to_string()
                .starts_with("the .safetensors header is not a JSON object of tensors:")
        );
        // __metadata__ twice.
        let meta = r#"{"__metadata__":{"a":"1"},"__metadata__":{"b":"2"}}"#;
        assert_eq!(
            parse(meta, 0).unwrap_err().to_string(),
            "the .safetensors header names tensor `__metadata__` twice"
        );
    }

    #[test]
    fn a_zero_dimension_means_no_elements() {
        let h = parse(
            r#"{"z":{"dtype":"F32","shape":[4611686018427387904,0],"data_offsets":[0,0]}}"#,
            0,
        )
        .unwrap();
        assert_eq!(h.tensors[0].shape, [1usize << 62, 0]);
    }

    #[test]
    fn faulty_fields_name_the_tensor_the_field_and_the_numbers() {
        let e = |j: &str, n| parse(j, n).unwrap_err().to_string();
        assert_eq!(
            e(
                r#"{"w":{"dtype":"F7","shape":[1],"data_offsets":[0,4]}}"#,
                4
            ),
            "tensor `w`: field `dtype` is `F7`, which is no safetensors dtype (F64, F32, F16, BF16, F8_E4M3, F8_E5M2, F8_E8M0, F4, I64, I32, I16, I8, U64, U32, U16, U8, BOOL, ...)"
        );
        assert_eq!(
            e(
                r#"{"w":{"dtype":"F32","shape":[1],"data_offsets":[0,6]}}"#,
                6
            ),
            "tensor `w`: dtype F32 and shape [1] need 1 elements × 32 bits = 4 bytes, but data_offsets [0, 6] hold 6 bytes"
        );
        assert_eq!(
            e(
                r#"{"w":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}}"#,
                4
            ),
            "tensor `w`: field `shape` must be a list of non-negative integers, not [-1]"
        );
        assert_eq!(
            e(
                r#"{"w":{"dtype":"F32","shape":[1],"data_offsets":[8,4]}}"#,
                4
            ),
            "tensor `w`: field `data_offsets` [8, 4] begins after it ends"
        );
        assert_eq!(
            e(
                r#"{"w":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}"#,
                8
            ),
            "tensor `w`: data_offsets begin at 4, but the data before it ends at 0 (tensor data must be contiguous)"
        );
        assert_eq!(
            e(r#"{"w":{"dtype":"F32","shape":[1]}}"#, 4),
            "tensor `w`: field `data_offsets` is missing"
        );
        assert!(
            e("[1]", 0).starts_with("the .safetensors header is not a JSON object of tensors:")
        );
    }
}
