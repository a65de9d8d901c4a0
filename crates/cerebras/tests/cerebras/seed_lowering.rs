//! Every lowering example of seed 004 (spec §12 A), with the seed's exact numbers.

#![allow(clippy::unwrap_used)]

use npusim_cerebras::ElemTy;
use npusim_cerebras::access::{AccessError, BoundsPolicy, Lowered, lower, parse};
use npusim_cerebras::dsd::{Base, DsdError, Mem1d, Mem4d};

fn low(text: &str, shape: &[u64]) -> Lowered {
    lower(&parse(text).unwrap(), shape, BoundsPolicy::Unchecked).unwrap()
}

fn base(name: &str, shape: &[u64]) -> Base {
    Base::tensor(name, ElemTy::U16, 0, shape.iter().product::<u64>() as u32)
}

fn mem1d(text: &str, shape: &[u64]) -> Mem1d {
    let l = low(text, shape);
    Mem1d::from_lowered(base(&l.array, shape), &l).unwrap()
}

fn mem4d(text: &str, shape: &[u64]) -> Mem4d {
    let l = low(text, shape);
    Mem4d::from_lowered(base(&l.array, shape), &l).unwrap()
}

#[test]
fn ten_words() {
    let d = mem1d("|i|{10} -> array[i]", &[10]);
    assert_eq!((d.offset, d.stride, d.extent), (0, 1, 10));
    assert_eq!(
        d.element_offsets().collect::<Vec<_>>(),
        (0..10).collect::<Vec<_>>()
    );
}

#[test]
fn odd_elements() {
    let d = mem1d("|i|{5} -> array[2 * i + 1]", &[10]);
    assert_eq!((d.offset, d.stride, d.extent), (1, 2, 5));
    assert_eq!(d.element_offsets().collect::<Vec<_>>(), [1, 3, 5, 7, 9]);
}

#[test]
fn first_element_has_stride_zero() {
    let d = mem1d("|i|{10} -> array[0]", &[10]);
    assert_eq!((d.offset, d.stride, d.extent), (0, 0, 10));
    assert_eq!(d.element_offsets().collect::<Vec<_>>(), [0; 10]);
}

#[test]
fn diagonal_of_20_by_20() {
    let d = mem1d("|i|{20} -> array[i,i]", &[20, 20]);
    assert_eq!((d.offset, d.stride, d.extent), (0, 21, 20));
    let seq: Vec<i64> = d.element_offsets().collect();
    assert_eq!(seq.first(), Some(&0));
    assert_eq!(seq.last(), Some(&399));
    assert_eq!(seq.iter().sum::<i64>(), 3990);
}

#[test]
fn access_of_a_offset_42_equals_the_explicit_fields() {
    let l = low("|i|{10} -> A[2*i + 42]", &[10]);
    let from_access = Mem1d::from_lowered(base("A", &[10]), &l).unwrap();
    let explicit = Mem1d::new(base("A", &[10]), 42, 2, 10).unwrap();
    assert_eq!(from_access, explicit);
    assert_eq!(
        from_access.element_offsets().collect::<Vec<_>>(),
        (42..=60).step_by(2).collect::<Vec<_>>()
    );
    // beyond the 10-element A: allowed by default, rejected when strict (spec §0.8)
    let strict = lower(
        &parse("|i|{10} -> A[2*i + 42]").unwrap(),
        &[10],
        BoundsPolicy::Strict,
    );
    assert!(matches!(
        strict,
        Err(AccessError::OutOfBounds {
            element: 42,
            elements: 10,
            ..
        })
    ));
}

#[test]
fn subset_2_by_2_of_4_by_3() {
    let d = mem4d("|i,j|{2,2} -> array[i, j]", &[4, 3]);
    assert_eq!(
        (d.offset, &d.extent[..], &d.stride[..]),
        (0, &[2, 2][..], &[1, 2][..])
    );
    // [0,0], [0,1], [1,0], [1,1]
    assert_eq!(d.element_offsets().collect::<Vec<_>>(), [0, 1, 3, 4]);
}

#[test]
fn four_dims_eight_elements_in_the_seeds_order() {
    let shape = [1, 2, 3, 4];
    let d = mem4d("|i,j,k,l|{1,2,1,4} -> array[i, j, 1+k, l]", &shape);
    assert_eq!(d.offset, 4);
    assert_eq!(d.extent, [1, 2, 1, 4]);
    assert_eq!(d.stride, [1, 1, 9, 9]);
    let seed_order = [
        [0, 0, 1, 0],
        [0, 0, 1, 1],
        [0, 0, 1, 2],
        [0, 0, 1, 3],
        [0, 1, 1, 0],
        [0, 1, 1, 1],
        [0, 1, 1, 2],
        [0, 1, 1, 3],
    ];
    let flat: Vec<i64> = seed_order
        .iter()
        .map(|t| ((t[0] * 2 + t[1]) * 3 + t[2]) * 4 + t[3])
        .collect();
    assert_eq!(d.element_offsets().collect::<Vec<_>>(), flat);
}

#[test]
fn degenerate_four_dims_access_element_zero_only() {
    let d = mem4d("|i,j,k,l|{1,1,1,1} -> array[i + j + k + l]", &[10]);
    assert_eq!(d.element_offsets().collect::<Vec<_>>(), [0]);
}

#[test]
fn two_i_plus_j_lowers_to_stride_1_minus_2() {
    let d = mem4d("|i,j|{5,5} -> A[2*i + j]", &[20]);
    let explicit = Mem4d::new(base("A", &[20]), 0, &[5, 5], Some(&[1, -2])).unwrap();
    assert_eq!(d, explicit);
    let seq: Vec<i64> = d.element_offsets().collect();
    assert_eq!(
        seq,
        [
            0, 1, 2, 3, 4, 2, 3, 4, 5, 6, 4, 5, 6, 7, 8, 6, 7, 8, 9, 10, 8, 9, 10, 11, 12
        ]
    );
    assert_eq!(seq.iter().sum::<i64>(), 150);
}

#[test]
fn four_dims_on_4_by_5_stride_1_m3_m3_m23_offset_2() {
    let d = mem4d("|i, j, k, l|{5, 5, 5, 5} -> A[i + j, k + l + 2]", &[4, 5]);
    assert_eq!(d.offset, 2);
    assert_eq!(d.extent, [5, 5, 5, 5]);
    assert_eq!(d.stride, [1, -3, -3, -23]);
    let seq: Vec<i64> = d.element_offsets().collect();
    assert_eq!(seq.len(), 625);
    assert_eq!(seq[..12], [2, 3, 4, 5, 6, 3, 4, 5, 6, 7, 4, 5]);
    assert_eq!(seq[621..], [47, 48, 49, 50]);
    assert_eq!(seq.iter().sum::<i64>(), 16250);
}

#[test]
fn the_warning_stride_1_m2_extent_2_4() {
    let d = Mem4d::new(base("A", &[8]), 0, &[2, 4], Some(&[1, -2])).unwrap();
    assert_eq!(
        d.element_offsets().collect::<Vec<_>>(),
        [0, 1, 2, 3, 1, 2, 3, 4]
    );
}

#[test]
fn increment_square_lowering() {
    let d = mem4d("|i, j|{2, 2} -> A[i + 1, j + 1]", &[10, 10]);
    assert_eq!((d.offset, &d.stride[..]), (11, &[1, 9][..]));
    assert_eq!(d.element_offsets().collect::<Vec<_>>(), [11, 12, 21, 22]);
}

#[test]
fn reduce_buffer_stride_1_m5_m5() {
    let d = mem4d("|i,j,k|{4,3,6} -> acc[k]", &[6]);
    assert_eq!(d.stride, [1, -5, -5]);
    let seq: Vec<i64> = d.element_offsets().collect();
    assert_eq!(seq.len(), 72);
    assert!(seq.chunks(6).all(|c| c == [0, 1, 2, 3, 4, 5]));
}

#[test]
fn a_mem1d_stride_outside_i8_is_rejected() {
    // walking a column of a 4 x 200 matrix: stride 200
    let l = low("|i|{4} -> M[i, 0]", &[4, 200]);
    let e = Mem1d::from_lowered(base("M", &[4, 200]), &l).unwrap_err();
    assert_eq!(
        e.to_string(),
        "mem1d_dsd stride 200 is out of range [-128, 127]"
    );
    // the same walk is a valid mem4d (i16 strides)
    assert_eq!(
        Mem4d::from_lowered(base("M", &[4, 200]), &l)
            .unwrap()
            .stride,
        [200]
    );
}

#[test]
fn limits_name_the_property_and_the_numbers() {
    let l = low("|i,j|{2,2} -> A[40000 * i, j]", &[1, 1]);
    let e = Mem4d::from_lowered(base("A", &[1, 1]), &l).unwrap_err();
    assert!(matches!(e, DsdError::Limit { .. }), "{e}");
    assert!(
        e.to_string().contains("stride[1]") && e.to_string().contains("39999"),
        "{e}"
    );
    let l = low("|i|{2} -> A[i + 40000]", &[1]);
    let e = Mem1d::from_lowered(base("A", &[1]), &l).unwrap_err();
    assert!(
        e.to_string()
            .contains("offset 40000 is out of range [-32768, 32767]"),
        "{e}"
    );
    let e = lower(
        &parse("|i|{70000} -> A[i]").unwrap(),
        &[1],
        BoundsPolicy::Unchecked,
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .contains("extent 70000 is out of range [0, 65535]"),
        "{e}"
    );
    let l = low("|i,j|{2,2} -> A[i, j]", &[2, 2]);
    let e = Mem1d::from_lowered(base("A", &[2, 2]), &l).unwrap_err();
    assert!(
        e.to_string()
            .contains("induction variables 2 is out of range [1, 1]"),
        "{e}"
    );
}

#[test]
fn parse_errors_are_typed() {
    let e = parse("|i,j,k,l,m|{1,1,1,1,1} -> A[i]").unwrap_err();
    assert!(
        e.to_string()
            .contains("induction variables 5 is out of range [1, 4]"),
        "{e}"
    );
    assert_eq!(
        parse("|i,j|{2} -> A[i]").unwrap_err(),
        AccessError::LengthCount {
            variables: 2,
            lengths: 1
        }
    );
    assert!(matches!(
        parse("|i|{2} -> A[i * i]"),
        Err(AccessError::NotAffine { column: 15 })
    ));
    assert!(matches!(
        parse("|i|{2} -> A[k]"),
        Err(AccessError::UnknownIdentifier { .. })
    ));
    assert!(matches!(
        parse("|i|{i} -> A[i]"),
        Err(AccessError::VariableInLength { .. })
    ));
    assert!(matches!(
        parse("|i,i|{1,1} -> A[i]"),
        Err(AccessError::DuplicateVariable { .. })
    ));
    assert!(matches!(
        parse("|i|{2} -> A[i"),
        Err(AccessError::Syntax { .. })
    ));
    assert!(matches!(
        parse("|i|{2} -> A[i] x"),
        Err(AccessError::Syntax { .. })
    ));
    assert!(matches!(
        parse("|i|{2} => A[i]"),
        Err(AccessError::Syntax { .. })
    ));
    assert!(matches!(
        parse(""),
        Err(AccessError::Syntax { column: 1, .. })
    ));
    assert!(matches!(
        parse("|i|{2} -> A[99999999999999999999 * i]"),
        Err(AccessError::Syntax { .. })
    ));
    let e = lower(
        &parse("|i|{2} -> A[i]").unwrap(),
        &[2, 2],
        BoundsPolicy::Unchecked,
    )
    .unwrap_err();
    assert_eq!(
        e,
        AccessError::IndexCount {
            array: "A".into(),
            rank: 2,
            indices: 1
        }
    );
}

#[test]
fn parentheses_minus_and_constant_products() {
    let a = parse("|i, j|{3, 4} -> A[-(i - 2) * 3 + 2 * (j + 1) - 1, (2 + 1) * j]").unwrap();
    assert_eq!(a.indices[0].coefficients, [-3, 2]);
    assert_eq!(a.indices[0].constant, 7);
    assert_eq!(a.indices[1].coefficients, [0, 3]);
    assert_eq!(
        a.to_string(),
        "|i, j|{3, 4} -> A[-3 * i + 2 * j + 7, 3 * j]"
    );
}

#[test]
fn strict_accepts_in_bounds_and_names_the_corner() {
    let a = parse("|i,j|{2,2} -> A[i, j]").unwrap();
    assert!(lower(&a, &[4, 3], BoundsPolicy::Strict).is_ok());
    let a = parse("|i|{5} -> A[4 - i, 0]").unwrap();
    let e = lower(&a, &[4, 1], BoundsPolicy::Strict).unwrap_err();
    assert_eq!(
        e,
        AccessError::OutOfBounds {
            array: "A".into(),
            tuple: vec![0],
            element: 4,
            elements: 4
        }
    );
}

/// Deep nesting is refused with a typed error naming the limit, never a stack overflow: the
/// audit's 8,000 parentheses and 37,000 unary minus signs (which aborted the process), run on
/// a test thread's small stack, and the deepest accepted nesting still lowers.
#[test]
fn deep_nesting_is_a_typed_error_not_a_stack_overflow() {
    use npusim_cerebras::access::parse::MAX_NESTING;
    let parens = format!("|i|{{1}} -> A[{}i{}]", "(".repeat(8_000), ")".repeat(8_000));
    let minus = format!("|i|{{1}} -> A[{}i]", "-".repeat(37_000));
    let mixed = format!(
        "|i|{{1}} -> A[{}i{}]",
        "-(".repeat(5_000),
        ")".repeat(5_000)
    );
    for text in [&parens, &minus, &mixed] {
        let e = parse(text).unwrap_err();
        assert!(
            matches!(e, AccessError::TooDeep { max, .. } if max == MAX_NESTING),
            "{e}"
        );
        assert!(e.to_string().contains("deeper than 64 levels"), "{e}");
    }
    // the first parenthesis one level too deep is named by its column
    assert_eq!(
        parse(&parens).unwrap_err(),
        AccessError::TooDeep {
            column: 13 + MAX_NESTING,
            max: MAX_NESTING
        }
    );
    // exactly MAX_NESTING levels are fine, and mean what they say
    let ok = format!(
        "|i|{{4}} -> A[{}i{}]",
        "(".repeat(MAX_NESTING),
        ")".repeat(MAX_NESTING)
    );
    let l = lower(&parse(&ok).unwrap(), &[4], BoundsPolicy::Unchecked).unwrap();
    assert_eq!(l.addresses().collect::<Vec<_>>(), vec![0, 1, 2, 3]);
    let negs = format!("|i|{{2}} -> A[3 + {}i]", "-".repeat(MAX_NESTING));
    let l = lower(&parse(&negs).unwrap(), &[4], BoundsPolicy::Unchecked).unwrap();
    assert_eq!(l.addresses().collect::<Vec<_>>(), vec![3, 4]);
}
