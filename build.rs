//! Links the command-line tool as a position-dependent executable on Linux
//! when it has no network-facing part (`serve` off), so that it starts
//! sooner; everything else (the library, tests, examples, a `serve` build)
//! is left as the toolchain makes it.
//!
//! Why: a position-independent executable is relocated by the loader at
//! every start. The default tool links the schema machinery (`--schema`),
//! and its tables of pointers come to about 16,000 relocations over some 75
//! pages, each page copied on write: about 90 of a start's 200 page faults
//! (README, Performance: the command-line tool). Linked at a fixed address
//! they are resolved once, by the linker. The cost is that the executable's
//! own image is not at a random address (the libraries, stack and heap
//! still are); a `serve` build, which answers the network, keeps that
//! protection, and `ACTIONSTREAM_PIE=1` keeps it for any build.

fn main() {
    println!("cargo::rerun-if-env-changed=ACTIONSTREAM_PIE");
    let linux = std::env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os == "linux");
    let serve = std::env::var_os("CARGO_FEATURE_SERVE").is_some();
    let pie = std::env::var("ACTIONSTREAM_PIE").is_ok_and(|v| v == "1");
    // A static build (`cargo build-static-cli`) sets its own relocation
    // model: leave it be.
    let static_crt = std::env::var("CARGO_CFG_TARGET_FEATURE")
        .is_ok_and(|f| f.split(',').any(|f| f == "crt-static"));
    if linux && !serve && !pie && !static_crt {
        println!("cargo::rustc-link-arg-bins=-no-pie");
    }
}
