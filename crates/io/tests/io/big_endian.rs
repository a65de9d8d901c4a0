//! Big-endian `.npy` files, written byte by byte here: every multi-byte standard dtype is
//! read by swapping each element to little-endian, and the cast of such a file equals the
//! cast of its little-endian twin.

// Test code: an unwrap that fails is a failed test (clippy.toml allows it in #[test] bodies;
// this extends it to the helpers).
#![allow(clippy::unwrap_used)]

use std::path::Path;

use npusim_io::{CastJob, Container, NoProgress, cast_bytes, npy};
use npusim_numerics::Format;

/// A version 1.0 `.npy` file with header `descr` and `shape`, data as given.
fn npy_file(descr: &str, shape: &str, data: &[u8]) -> Vec<u8> {
    let mut header =
        format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': ({shape}), }}");
    // Pad so that the data starts on a 64-byte boundary, ending in a newline.
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(data);
    out
}

/// Reverses each `width`-byte element.
fn swapped(le: &[u8], width: usize) -> Vec<u8> {
    le.chunks(width)
        .flat_map(|c| c.iter().rev().copied())
        .collect()
}

#[test]
fn every_big_endian_standard_dtype_reads_as_its_little_endian_twin() {
    let cases: [(&str, Format, Vec<u8>); 8] = [
        (
            "f4",
            Format::F32,
            [1.5f32, -2.25, 1e-40]
                .iter()
                .flat_map(|x| x.to_le_bytes())
                .collect(),
        ),
        (
            "f8",
            Format::F64,
            [1.5f64, -2.25, 1e300]
                .iter()
                .flat_map(|x| x.to_le_bytes())
                .collect(),
        ),
        (
            "f2",
            Format::F16,
            [0x3c00u16, 0xc000, 0x7bff]
                .iter()
                .flat_map(|x| x.to_le_bytes())
                .collect(),
        ),
        (
            "i2",
            Format::I16,
            [1i16, -2, 300]
                .iter()
                .flat_map(|x| x.to_le_bytes())
                .collect(),
        ),
        (
            "i4",
            Format::I32,
            [1i32, -2, 70000]
                .iter()
                .flat_map(|x| x.to_le_bytes())
                .collect(),
        ),
        (
            "i8",
            Format::I64,
            [1i64, -2, 1 << 40]
                .iter()
                .flat_map(|x| x.to_le_bytes())
                .collect(),
        ),
        (
            "u2",
            Format::U16,
            [1u16, 2, 65535]
                .iter()
                .flat_map(|x| x.to_le_bytes())
                .collect(),
        ),
        (
            "u4",
            Format::U32,
            [1u32, 2, 1 << 31]
                .iter()
                .flat_map(|x| x.to_le_bytes())
                .collect(),
        ),
    ];
    for (code, format, le) in cases {
        let width = format.unpacked_bytes();
        let big = npy_file(&format!(">{code}"), "3,", &swapped(&le, width));
        let array = npy::parse(&big).unwrap();
        assert_eq!(array.descr, format!(">{code}"));
        assert!(array.big_endian, "{code}");
        let f = npy::element_format(&array, None).unwrap();
        assert_eq!(f, format, "{code}");
        let e = npy::elements(&array, f, &array.shape, false).unwrap();
        assert_eq!(&e.bytes[..], le, ">{code}");
        // The little-endian twin reads the same without a copy.
        let little = npy_file(&format!("<{code}"), "3,", &le);
        let array = npy::parse(&little).unwrap();
        assert!(!array.big_endian);
        let e = npy::elements(&array, f, &array.shape, false).unwrap();
        assert_eq!(&e.bytes[..], le, "<{code}");
    }
}

#[test]
fn single_byte_dtypes_have_no_byte_order_to_swap() {
    let file = npy_file("|i1", "2,", &[0xff, 0x01]);
    let array = npy::parse(&file).unwrap();
    assert!(!array.big_endian);
    let e = npy::elements(&array, Format::I8, &[2], false).unwrap();
    assert_eq!(&e.bytes[..], [0xff, 0x01]);
}

#[test]
fn a_big_endian_file_casts_like_its_little_endian_twin_and_is_written_little_endian() {
    let xs = [1.0f32, -2.5, 3.25, 0.1, -0.0, 448.0];
    let le: Vec<u8> = xs.iter().flat_map(|x| x.to_le_bytes()).collect();
    let be: Vec<u8> = xs.iter().flat_map(|x| x.to_be_bytes()).collect();
    let job = CastJob::new(Container::Npy, Container::Npy, Format::F32);
    let (be_file, le_file) = (npy_file(">f4", "2, 3", &be), npy_file("<f4", "2, 3", &le));
    let from_be = cast_bytes(&job, Path::new("be.npy"), &be_file, &mut NoProgress).unwrap();
    let from_le = cast_bytes(&job, Path::new("le.npy"), &le_file, &mut NoProgress).unwrap();
    let out = from_be.bytes.clone();
    assert_eq!(out, from_le.bytes.clone());
    let back = npy::parse(&out).unwrap();
    assert_eq!(
        (back.descr.as_str(), back.shape.as_slice()),
        ("<f4", &[2usize, 3][..])
    );
    assert_eq!(back.data, le);
    // --from reinterprets the swapped elements: '>i2' codes read as f16.
    let mut job = CastJob::new(Container::Npy, Container::Raw, Format::F32);
    job.from = Some(Format::F16);
    let file = npy_file(">i2", "2,", &[0x3c, 0x00, 0xc0, 0x00]);
    let done = cast_bytes(&job, Path::new("h.npy"), &file, &mut NoProgress).unwrap();
    let bytes = done.bytes.clone();
    assert_eq!(
        bytes,
        [1.0f32, -2.0]
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect::<Vec<_>>()
    );
}

#[test]
fn big_endian_dtypes_without_a_format_are_refused_by_name() {
    let file = npy_file(">u8", "1,", &[0; 8]);
    let e = npy::parse(&file).unwrap_err().to_string();
    assert!(e.starts_with("dtype '>u8' is not supported"), "{e}");
    let file = npy_file(">c8", "1,", &[0; 8]);
    let e = npy::parse(&file).unwrap_err().to_string();
    assert!(e.starts_with("dtype '>c8' is not supported"), "{e}");
}
