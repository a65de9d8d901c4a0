//! Bulk casts: the packed and unpacked 2- and 4-bit layouts, 6-bit formats one per byte, `cast_slice` / `cast_elements` against
//! per-element `convert`, parallel against serial execution, and a statistical check of
//! stochastic (`hybrid`) rounding.

use crate::oracle;

use npusim_numerics::{
    BulkOptions, CastPolicy, Format, Layout, RoundMode, Storage, cast_elements, cast_slice,
    convert, convert_with_entropy, entropy,
};
use oracle::{SplitMix, mask};

/// The formats stored packed: every format of at most 4 bits (in the oracle's width table).
fn packed_formats() -> Vec<Format> {
    oracle::formats_up_to(4)
}

/// Elements per byte in the packed layout, from the oracle's width: 4 for 2-bit formats, 2
/// for 4-bit ones; `None` for formats that are never packed.
fn per_byte(f: Format) -> Option<usize> {
    match oracle::width(f) {
        2 => Some(4),
        4 => Some(2),
        _ => None,
    }
}

fn storage(f: Format, layout: Layout) -> Storage {
    Storage::new(f, layout).expect("storage")
}

/// Random codes of `f`; floats get a share of "interesting" codes by using raw bits.
fn random_codes(f: Format, n: usize, seed: u64) -> Vec<u64> {
    let mut r = SplitMix(seed);
    (0..n)
        .map(|i| {
            let x = r.next_u64();
            match (f, i % 3) {
                // value-shaped f32/f64 so narrow destinations round rather than overflow
                (Format::F32, 0) => (x & 0x807F_FFFF) | ((100 + (x >> 40) % 40) << 23),
                (Format::F64, 0) => (x & 0x800F_FFFF_FFFF_FFFF) | ((1000 + (x >> 40) % 40) << 52),
                _ => x & mask(f),
            }
        })
        .collect()
}

/// Encodes codes into a buffer by hand (little-endian; packed: element 0 in the lowest bits).
fn encode(codes: &[u64], f: Format, layout: Layout) -> Vec<u8> {
    if let (Some(per), Layout::Packed) = (per_byte(f), layout) {
        let bits = 8 / per;
        let mut out = vec![0u8; codes.len().div_ceil(per)];
        for (i, &c) in codes.iter().enumerate() {
            out[i / per] |= ((c & mask(f)) as u8) << (bits * (i % per));
        }
        out
    } else {
        let w = (oracle::width(f) as usize).div_ceil(8);
        codes
            .iter()
            .flat_map(|c| c.to_le_bytes()[..w].to_vec())
            .collect()
    }
}

fn decode_buf(buf: &[u8], f: Format, layout: Layout, n: usize) -> Vec<u64> {
    if let (Some(per), Layout::Packed) = (per_byte(f), layout) {
        let bits = 8 / per;
        (0..n)
            .map(|i| u64::from(buf[i / per] >> (bits * (i % per))) & mask(f))
            .collect()
    } else {
        let w = (oracle::width(f) as usize).div_ceil(8);
        buf.chunks_exact(w)
            .map(|c| {
                let mut a = [0u8; 8];
                a[..w].copy_from_slice(c);
                u64::from_le_bytes(a)
            })
            .collect()
    }
}

#[test]
fn sub_byte_layouts_round_trip_and_pack_lowest_bits_first() {
    let formats = packed_formats();
    assert_eq!(formats.len(), 6, "{formats:?}");
    for f in formats {
        let per = per_byte(f).expect("packed");
        assert_eq!(Storage::native(f).layout(), Layout::Packed, "{f}");
        for n in [0usize, 1, 2, 3, 5, 7, 16, 1001, 70_001, 70_003] {
            let codes = random_codes(f, n, 0xB0 + n as u64);
            let unpacked = encode(&codes, f, Layout::Unpacked);
            let mut packed = vec![0xAAu8; n.div_ceil(per)];
            let policy = CastPolicy::new(RoundMode::Rint);
            cast_elements(
                &unpacked,
                storage(f, Layout::Unpacked),
                &mut packed,
                storage(f, Layout::Packed),
                n,
                &policy,
                &BulkOptions::default(),
            )
            .expect("pack");
            assert_eq!(
                packed,
                encode(&codes, f, Layout::Packed),
                "{f} n={n} packed bytes"
            );
            if n % per != 0 {
                let used = 8 / per * (n % per);
                assert_eq!(packed[n / per] >> used, 0, "{f}: padding bits are zero");
            }
            let mut back = vec![0x55u8; n];
            cast_elements(
                &packed,
                storage(f, Layout::Packed),
                &mut back,
                storage(f, Layout::Unpacked),
                n,
                &policy,
                &BulkOptions::default(),
            )
            .expect("unpack");
            assert_eq!(back, unpacked, "{f} n={n} round trip");
            // Storage::read / write agree with the hand layout
            let s = storage(f, Layout::Packed);
            for (i, &c) in codes.iter().enumerate().take(100) {
                assert_eq!(s.read(&packed, i), c);
            }
            let mut w = vec![0u8; n.div_ceil(per)];
            for (i, &c) in codes.iter().enumerate() {
                s.write(&mut w, i, c);
            }
            assert_eq!(w, packed);
        }
    }
    // a concrete example: [1, 2, 3] as e2m1 codes → bytes 0x21, 0x03
    let mut dst = [0u8; 2];
    cast_elements(
        &[1, 2, 3],
        storage(Format::F4E2M1, Layout::Unpacked),
        &mut dst,
        storage(Format::F4E2M1, Layout::Packed),
        3,
        &CastPolicy::default(),
        &BulkOptions::default(),
    )
    .expect("pack");
    assert_eq!(dst, [0x21, 0x03]);
    // 2-bit: [1, 2, 3, 0, 1] as u2 codes → bytes 0b00_11_10_01 = 0x39, 0x01
    let mut dst = [0xFFu8; 2];
    cast_elements(
        &[1, 2, 3, 0, 1],
        storage(Format::U2, Layout::Unpacked),
        &mut dst,
        storage(Format::U2, Layout::Packed),
        5,
        &CastPolicy::default(),
        &BulkOptions::default(),
    )
    .expect("pack");
    assert_eq!(dst, [0x39, 0x01]);
    // i2 from f32 [1, -2, -1, 0.4, 7]: codes 1, 2, 3, 0, 1 (7 saturates to 1)
    let src: Vec<u8> = [1.0f32, -2.0, -1.0, 0.4, 7.0]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let mut dst = [0xFFu8; 2];
    cast_elements(
        &src,
        Storage::native(Format::F32),
        &mut dst,
        Storage::native(Format::I2),
        5,
        &CastPolicy::default(),
        &BulkOptions::default(),
    )
    .expect("cast");
    assert_eq!(dst, [0x39, 0x01]);
}

/// 6-bit formats are one element per byte (never packed), in the low bits, the high bits zero.
#[test]
fn six_bit_formats_are_one_per_byte() {
    let six: Vec<Format> = Format::ALL
        .into_iter()
        .filter(|&f| oracle::width(f) == 6)
        .collect();
    assert_eq!(six, [Format::F6E2M3FN, Format::F6E3M2FN]);
    for f in six {
        assert!(Storage::new(f, Layout::Packed).is_err(), "{f}");
        let s = Storage::native(f);
        assert_eq!(s.layout(), Layout::Unpacked);
        assert_eq!(s.bytes_for(5), 5);
        let mut buf = vec![0xFFu8; 3];
        for (i, c) in [0x3Fu64, 0x20, 0x01].into_iter().enumerate() {
            s.write(&mut buf, i, c);
            assert_eq!(s.read(&buf, i), c);
        }
        assert_eq!(buf, [0x3F, 0x20, 0x01], "{f}: high bits zero");
        // f32 → fp6 through the bulk path: -7.5 / -28 (the minimum) and NaN → +0
        let min = oracle::table(f).entries[1].0 as f32;
        let src: Vec<u8> = [min, f32::NAN, 0.0]
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        let mut dst = [0xAAu8; 3];
        cast_slice(&src, Format::F32, &mut dst, f, &CastPolicy::default()).expect("cast");
        assert_eq!(dst, [0x3F, 0x00, 0x00], "{f}");
    }
}

/// `cast_slice` / `cast_elements` give exactly what per-element `convert` gives.
#[test]
fn bulk_equals_per_element_convert() {
    use Format::*;
    let pairs = [
        (F32, F16),
        (F32, BF16),
        (F32, F8E4M3FN),
        (F32, F4E2M1),
        (F32, HiF8),
        (F32, I8),
        (F64, BF16),
        (F64, F4E1M2),
        (F16, F8E5M2),
        (F16, I4),
        (BF16, F8E8M0),
        (I4, F16),
        (F4E2M1, F4E1M2),
        (F4E1M2, F32),
        (I32, U8),
        (U16, HiF8),
        (HiF8, F32),
        (I64, F32),
        (F32, I2),
        (F32, U2),
        (F32, U4),
        (F64, U64),
        (U64, F32),
        (U64, BF16),
        (F32, F6E2M3FN),
        (F6E3M2FN, F32),
        (F32, F8E4M3FNUZ),
        (F8E5M2FNUZ, BF16),
        (F16, F8E4M3B11FNUZ),
        (F32, F8E4M3),
        (F8E3M4, F8E4M3FN),
        (U2, F16),
        (I2, F4E2M1),
        (U4, I2),
        (F6E2M3FN, U2),
    ];
    let policies = [
        CastPolicy::new(RoundMode::Rint),
        CastPolicy::saturating(RoundMode::Odd),
        CastPolicy::non_saturating(RoundMode::Floor),
    ];
    let mut checked = 0u64;
    for (k, &(src, dst)) in pairs.iter().enumerate() {
        // above the parallel threshold, and not a multiple of 2 or 4 for the packed formats
        let n = 100_001;
        let codes = random_codes(src, n, 0xC0 + k as u64);
        let sbuf = encode(&codes, src, Layout::Packed);
        for p in &policies {
            let mut dbuf = vec![0u8; Storage::native(dst).bytes_for(n)];
            // cast_slice infers the count from the buffer: packed sources need a whole byte
            if per_byte(src).is_some() {
                cast_elements(
                    &sbuf,
                    Storage::native(src),
                    &mut dbuf,
                    Storage::native(dst),
                    n,
                    p,
                    &BulkOptions::default(),
                )
                .expect("cast");
            } else {
                cast_slice(&sbuf, src, &mut dbuf, dst, p).expect("cast");
            }
            let got = decode_buf(&dbuf, dst, Layout::Packed, n);
            for (i, &c) in codes.iter().enumerate() {
                assert_eq!(
                    got[i],
                    convert(c, src, dst, p),
                    "{src}->{dst} {p:?} element {i}"
                );
            }
            checked += n as u64;
        }
    }
    println!("bulk == convert: {checked} elements checked");
}

/// Parallel and serial bulk casts give identical bytes, including stochastic rounding, whose
/// entropy depends only on the seed and the element's global index; and each hybrid element
/// equals `convert_with_entropy` with `entropy(seed, index)`.
#[test]
fn parallel_and_serial_give_identical_bytes() {
    use Format::*;
    let n = 300_003;
    for (src, dst) in [
        (F32, F16),
        (F32, F4E2M1),
        (BF16, F8E4M3FN),
        (F64, HiF8),
        (F32, U2),
        (F32, F6E3M2FN),
    ] {
        let codes = random_codes(src, n, 0xD0 + src as u64);
        let sbuf = encode(&codes, src, Layout::Packed);
        for mode in [RoundMode::Rint, RoundMode::Odd, RoundMode::Hybrid] {
            let p = CastPolicy::new(mode);
            let par = BulkOptions {
                seed: 42,
                ..BulkOptions::default()
            };
            let ser = BulkOptions {
                parallel: false,
                ..par
            };
            let mut a = vec![0u8; Storage::native(dst).bytes_for(n)];
            let mut b = vec![0xFFu8; a.len()];
            let (s, d) = (Storage::native(src), Storage::native(dst));
            cast_elements(&sbuf, s, &mut a, d, n, &p, &par).expect("par");
            cast_elements(&sbuf, s, &mut b, d, n, &p, &ser).expect("ser");
            assert!(a == b, "{src}->{dst} {mode:?}: parallel != serial");
            if mode == RoundMode::Hybrid {
                let got = decode_buf(&a, dst, Layout::Packed, n);
                for i in (0..n).step_by(97) {
                    let e = entropy(42, i as u64);
                    assert_eq!(got[i], convert_with_entropy(codes[i], src, dst, &p, e));
                }
            }
        }
    }
}

/// Stochastic rounding is unbiased: a value 1/4 of the way from one f16 to the next rounds
/// up about 1/4 of the time (and exact values never move).
#[test]
fn hybrid_rounds_up_with_the_probability_of_the_fraction() {
    let n = 1 << 17;
    for (frac, want) in [(0.25f64, 0.25f64), (0.5, 0.5), (0.875, 0.875), (0.0, 0.0)] {
        // 1 + frac·2^-10 is between f16 1.0 (0x3C00) and 1 + 2^-10 (0x3C01)
        let x = (1.0 + frac * 2f64.powi(-10)) as f32;
        let src: Vec<u8> = (0..n).flat_map(|_| x.to_le_bytes()).collect();
        let mut dst = vec![0u8; 2 * n];
        cast_slice(
            &src,
            Format::F32,
            &mut dst,
            Format::F16,
            &CastPolicy::new(RoundMode::Hybrid),
        )
        .expect("cast");
        let ups = dst
            .chunks_exact(2)
            .filter(|c| u16::from_le_bytes([c[0], c[1]]) == 0x3C01)
            .count();
        let downs = dst
            .chunks_exact(2)
            .filter(|c| u16::from_le_bytes([c[0], c[1]]) == 0x3C00)
            .count();
        assert_eq!(ups + downs, n, "only the two neighbours");
        let p = ups as f64 / n as f64;
        // 6 sigma of a binomial with n = 2^17
        let tol = 6.0 * (want * (1.0 - want) / n as f64).sqrt() + 1e-12;
        assert!((p - want).abs() <= tol, "fraction {frac}: P(up) = {p}");
    }
}
