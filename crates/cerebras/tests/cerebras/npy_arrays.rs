//! PE arrays read and written as `.npy` files (issue item 1).

#![allow(clippy::unwrap_used)]

use std::path::Path;

use half::f16;
use npusim_cerebras::npy::NpyError;
use npusim_cerebras::{Arch, ElemTy, PeMemory};

/// A version-1 `.npy` file with this header dictionary and data, built by hand.
fn npy_file(descr: &str, shape: &str, fortran: bool, data: &[u8]) -> Vec<u8> {
    let order = if fortran { "True" } else { "False" };
    let mut dict = format!("{{'descr': '{descr}', 'fortran_order': {order}, 'shape': {shape}, }}");
    while (10 + dict.len() + 1) % 64 != 0 {
        dict.push(' ');
    }
    dict.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(dict.len() as u16).to_le_bytes());
    out.extend_from_slice(dict.as_bytes());
    out.extend_from_slice(data);
    out
}

#[test]
fn every_element_type_round_trips_through_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut m = PeMemory::new(Arch::Wse2);
    m.declare_with("a", &[2, 3], &[1u16, 2, 3, 4, 5, 0xFFFF])
        .unwrap();
    m.declare_with("b", &[3], &[-1i16, 0, 7]).unwrap();
    m.declare_with("c", &[2], &[f16::from_f32(1.5), f16::from_f32(-0.25)])
        .unwrap();
    m.declare_with("d", &[2], &[0xDEAD_BEEFu32, 1]).unwrap();
    m.declare_with("e", &[1, 2], &[-5i32, i32::MAX]).unwrap();
    m.declare_with("f", &[2, 2], &[0.5f32, -1.0, 3.0e38, 1.0e-40])
        .unwrap();
    let mut copy = PeMemory::new(Arch::Wse3);
    for (name, descr) in [
        ("a", "<u2"),
        ("b", "<i2"),
        ("c", "<f2"),
        ("d", "<u4"),
        ("e", "<i4"),
        ("f", "<f4"),
    ] {
        let path = dir.path().join(format!("{name}.npy"));
        m.save_npy(name, &path).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        let parsed = npusim_io::npy::parse(&bytes).unwrap();
        assert_eq!(parsed.descr, descr);
        let shape: Vec<u64> = parsed.shape.iter().map(|&d| d as u64).collect();
        assert_eq!(shape, m.array(name).unwrap().shape);
        assert_eq!(parsed.data, m.array_bytes(name).unwrap());
        copy.declare_npy(name, &path).unwrap();
        assert_eq!(copy.array(name).unwrap().elem, m.array(name).unwrap().elem);
        assert_eq!(
            copy.array_bytes(name).unwrap(),
            m.array_bytes(name).unwrap()
        );
    }
    // and into an existing array
    copy.write("f", &[0.0f32; 4]).unwrap();
    copy.load_npy("f", &dir.path().join("f.npy")).unwrap();
    assert_eq!(copy.read::<f32>("f").unwrap(), m.read::<f32>("f").unwrap());
}

#[test]
fn big_endian_files_are_swapped() {
    let mut m = PeMemory::new(Arch::Wse2);
    m.declare("x", ElemTy::I16, &[3]).unwrap();
    let file = npy_file(">i2", "(3,)", false, &[0x00, 0x01, 0xFF, 0xFE, 0x12, 0x34]);
    m.load_npy_bytes("x", Path::new("x.npy"), &file).unwrap();
    assert_eq!(m.read::<i16>("x").unwrap(), [1, -2, 0x1234]);
}

#[test]
fn a_file_that_does_not_fit_the_array_is_a_typed_error() {
    let mut m = PeMemory::new(Arch::Wse2);
    m.declare("x", ElemTy::I16, &[2, 2]).unwrap();
    let p = Path::new("in.npy");
    let e = m
        .load_npy_bytes("x", p, &npy_file("<f4", "(2, 2)", false, &[0; 16]))
        .unwrap_err();
    assert!(matches!(e, NpyError::Dtype { .. }), "{e}");
    assert_eq!(e.to_string(), "in.npy: holds <f4, but array `x` holds i16");
    let e = m
        .load_npy_bytes("x", p, &npy_file("<i2", "(4,)", false, &[0; 8]))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "in.npy: shape [4], but array `x` has shape [2, 2]"
    );
    let e = m
        .load_npy_bytes("x", p, &npy_file("<i2", "(2, 2)", true, &[0; 8]))
        .unwrap_err();
    assert!(matches!(e, NpyError::Fortran { .. }), "{e}");
    let e = m
        .load_npy_bytes("x", p, &npy_file("<f8", "(2, 2)", false, &[0; 32]))
        .unwrap_err();
    assert!(
        e.to_string().contains("dtype <f8 is not a PE element type"),
        "{e}"
    );
    let e = m.load_npy_bytes("x", p, b"not a numpy file").unwrap_err();
    assert!(matches!(e, NpyError::Io(_)), "{e}");
    let e = m.load_npy_bytes("y", p, b"").unwrap_err();
    assert_eq!(e.to_string(), "no array named `y` is declared");
    let e = m
        .declare_npy("z", Path::new("/nonexistent/z.npy"))
        .unwrap_err();
    assert!(e.to_string().starts_with("/nonexistent/z.npy: "), "{e}");
    // a file larger than the memory
    let big = npy_file("<f4", "(20000,)", false, &vec![0; 80_000]);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.npy");
    std::fs::write(&path, big).unwrap();
    let e = m.declare_npy("big", &path).unwrap_err();
    assert!(e.to_string().contains("needs 40000 words"), "{e}");
}
