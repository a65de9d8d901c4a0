//! The hand-written SDK tutorial programs E1 and E10 produce their documented outputs.

#[path = "../../examples/e1_gemv_memory_dsds.rs"]
mod e1;
#[path = "../../examples/e10_map_builtin.rs"]
mod e10;

#[test]
fn e1_gemv_memory_dsds() {
    assert_eq!(e1::run().unwrap(), [17.0, 53.0, 89.0, 125.0]);
}

#[test]
fn e10_map_builtin() {
    let (a, sum) = e10::run().unwrap();
    for (k, v) in a.iter().enumerate() {
        let want = if k % 6 == 0 { 6.480_740_5_f32 } else { 42.0 };
        assert_eq!(v.to_bits(), want.to_bits(), "A element {k}");
    }
    assert_eq!(sum, 150);
}
