//! The fabric DSD fields `.simd_mode` and `.control_transform` (the seed's "SIMD Mode" and
//! "Control Wavelet Transform"): read where they are written and handed to the simulator.
//! A relay whose middle PE marks and rebuilds control wavelets moves a data vector as it does
//! without; SIMD mode, which packs two 16-bit values in a wavelet, is refused with a 32-bit
//! operation; a mode of another shape is refused naming the choices.

use npusim_cerebras::Arch as SimArch;
use npusim_csl::comptime::Arch;
use npusim_csl::pe::{LoadedPe, run};

use super::pe_fabric::{LIMIT, compile, load_at, program_text, relay_row};

fn relay_text(extra: &str) -> String {
    program_text("fabric_priority/priority_wse3.csl")
        .replace(
            "  .extent = M, .fabric_color = send_color, .output_queue = send_q\n",
            &format!("  .extent = M, .fabric_color = send_color, .output_queue = send_q{extra}\n"),
        )
        .replace(
            "  .priority = .{ .high = true }\n",
            &format!("  .priority = .{{ .high = true }}{extra}\n"),
        )
}

fn relay(text: &str, src: &[f32]) -> Result<Vec<f32>, String> {
    let m = src.len();
    let mut sim = relay_row(SimArch::Wse3, 3, 4);
    let params = [("M", m as i128), ("in_color", 3), ("out_color", 4)];
    let pes: Vec<LoadedPe> = (0..3)
        .map(|x| load_at(&mut sim, "relay.csl", text, Arch::Wse3, x, &params))
        .collect();
    sim.pe_mut(0, 0).unwrap().mem.write("src", src).unwrap();
    run(&mut sim, LIMIT, &pes).map_err(|e| e.to_string())?;
    Ok(sim.pe(2, 0).unwrap().mem.read::<f32>("dst").unwrap())
}

#[test]
fn a_relay_with_control_transform_moves_a_data_vector_unchanged() {
    let text = relay_text(", .control_transform = true");
    assert!(text.contains(".control_transform = true"));
    // f32 values in [0, 2) leave the two high index bits (31..30) clear
    let src: Vec<f32> = (0..6).map(|i| i as f32 * 0.25).collect();
    assert_eq!(relay(&text, &src).unwrap_or_else(|e| panic!("{e}")), src);
}

#[test]
fn a_data_wavelet_using_the_two_high_index_bits_is_refused_under_control_transform() {
    // the seed: "only the least significant 14 bits of the index can be utilized by the user"
    let text = relay_text(", .control_transform = true");
    let err = relay(&text, &[0.5, -1.0, 0.25]).unwrap_err();
    assert!(err.contains("control_transform reserves"), "{err}");
}

#[test]
fn simd_mode_with_a_32_bit_operation_is_refused() {
    let text = relay_text(", .simd_mode = .{ .simd_32 = true }");
    let err = relay(&text, &[1.0, 2.0]).unwrap_err();
    assert!(err.to_lowercase().contains("simd"), "{err}");
}

#[test]
fn a_simd_mode_of_another_shape_is_refused_naming_the_choices() {
    let text = relay_text(", .simd_mode = .{ .simd_16 = true }");
    let err = match compile(
        "relay.csl",
        &text,
        Arch::Wse3,
        &[("pe_id", 1), ("M", 4), ("in_color", 3), ("out_color", 4)],
    ) {
        Ok(_) => panic!("compiled"),
        Err(e) => e.to_string(),
    };
    assert!(
        err.contains("`.simd_mode` takes one of `.{ .simd_32 = true }`, `.{ .simd_64 = true }`, `.{ .simd_32_or_64 = true }`"),
        "{err}"
    );
}
