//! E11 (`gemv-scaled`) at several small sizes gives a plain matrix-vector product computed
//! here, element by element, from the program's documented inputs.

use npusim_cerebras::Arch;
use npusim_examples::cerebras::programs::ProgramError;
use npusim_examples::cerebras::programs::e11_gemv_scaled::{Size, build_sized, results};

/// `y = A x + b` with `A[i][j] = (3 i + 5 j) mod 11 - 5`, `x[j] = j mod 7 - 3`,
/// `b[i] = i mod 4`, in i64 (exact).
fn plain_gemv(m: u64, n: u64) -> Vec<f32> {
    (0..m)
        .map(|i| {
            let mut acc = (i % 4) as i64;
            for j in 0..n {
                let a = ((3 * i + 5 * j) % 11) as i64 - 5;
                let x = (j % 7) as i64 - 3;
                acc += a * x;
            }
            acc as f32
        })
        .collect()
}

#[test]
fn small_sizes_give_the_plain_product_and_one_exit_per_pe() {
    let sizes = [
        (1, 1, 1, 1),
        (1, 1, 3, 5),
        (4, 1, 2, 3),
        (1, 5, 3, 2),
        (3, 2, 3, 5),
        (4, 3, 2, 2),
        (8, 8, 4, 4),
        (5, 7, 6, 1),
    ];
    for (width, height, m_per_pe, n_per_pe) in sizes {
        let size = Size {
            width,
            height,
            m_per_pe,
            n_per_pe,
        };
        for arch in [Arch::Wse2, Arch::Wse3] {
            let mut sim = build_sized(arch, size).unwrap();
            let report = sim.run(size.cycle_limit()).unwrap();
            let (y, exits) = results(&sim, size).unwrap();
            let m = u64::from(height * m_per_pe);
            let n = u64::from(width * n_per_pe);
            assert_eq!(y, plain_gemv(m, n), "{size:?} on {arch}");
            assert_eq!(
                exits,
                vec![1; (width * height) as usize],
                "{size:?} on {arch}"
            );
            assert!(report.cycles > 0 && report.cycles < size.cycle_limit());
        }
    }
}

#[test]
fn a_block_without_elements_is_refused_with_its_numbers() {
    let size = Size {
        width: 2,
        height: 2,
        m_per_pe: 0,
        n_per_pe: 3,
    };
    let err = build_sized(Arch::Wse2, size).err().unwrap();
    assert!(matches!(err, ProgramError::Size { .. }), "{err:?}");
    assert!(err.to_string().contains("0 x 3"), "{err}");
}

#[test]
fn a_block_too_large_for_the_pe_memory_is_the_memory_error() {
    // 128 x 128 f32 = 64 KiB of A alone, more than 48 KiB
    let size = Size {
        width: 1,
        height: 1,
        m_per_pe: 128,
        n_per_pe: 128,
    };
    let err = build_sized(Arch::Wse2, size).err().unwrap();
    assert!(matches!(err, ProgramError::Memory(_)), "{err:?}");
}
