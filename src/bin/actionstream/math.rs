//! The two C maths functions the tool's dependencies call, `pow` (tokio's
//! scheduler) and `log2` (num-bigint, under the schema machinery), defined
//! here from the `libm` crate so that the linker finds them in the
//! executable and, with `--as-needed`, does not make it load glibc's libm.
//!
//! Why: every shared library costs a start its own opening, mappings and
//! page faults. Without libm (and with libgcc's unwinder linked in, see
//! `build.rs`) the tool loads only libc, which shortens every start
//! (docs/cli.md, "Start-up"; the figures are in docs/performance.md). glibc's static libm cannot be linked into a dynamic
//! executable (it needs a private symbol of the loader), hence the crate.
//!
//! Only this executable's references bind here: it exports nothing to the
//! shared libraries it loads, and libc calls neither function.
//!
//! The functions are glibc's only in name: both are musl's algorithms,
//! within 1 ulp like glibc's, and neither sets `errno`, which no caller in
//! this executable reads. Check with `nm -D --undefined-only` on the
//! executable that no other libm symbol is wanted: a new one would make the
//! linker load libm again, which is correct, only slower to start.
#![allow(unsafe_code)]

/// `double pow(double x, double y)`.
// SAFETY: `no_mangle` defines the C symbol `pow` for this executable. The
// signature is C's (`extern "C"`, two `f64` in, one out, no pointers), the
// body is safe Rust, and no other definition is linked into the executable
// (the linker would refuse two).
#[no_mangle]
pub extern "C" fn pow(x: f64, y: f64) -> f64 {
    libm::pow(x, y)
}

/// `double log2(double x)`.
// SAFETY: as for `pow` above.
#[no_mangle]
pub extern "C" fn log2(x: f64) -> f64 {
    libm::log2(x)
}

#[cfg(test)]
mod tests {
    // Compared with exact or correctly rounded values, not with `f64::powf`
    // and `f64::log2`: in this executable those call the functions above.
    #[test]
    fn give_the_correctly_rounded_values_callers_ask_for() {
        // tokio: an exponential moving average's weight; num-bigint: the
        // bits a digit of a radix carries.
        assert_eq!(super::pow(2.0, 10.0), 1024.0);
        assert_eq!(super::pow(0.5, 3.0), 0.125);
        assert_eq!(super::pow(10.0, -2.0), 0.01);
        assert_eq!(super::pow(0.81, 0.5), 0.9);
        assert_eq!(super::log2(16.0), 4.0);
        assert_eq!(super::log2(1024.0), 10.0);
        assert_eq!(super::log2(10.0), std::f64::consts::LOG2_10);
        assert_eq!(super::log2(36.0), 5.169925001442312);
    }
}
