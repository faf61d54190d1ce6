//! Makes the command-line tool start sooner on Linux; everything else (the
//! library, tests, examples) is left as the toolchain makes it. Two things,
//! each only for the crate's binaries (`rustc-link-arg-bins`):
//!
//! 1. **Linked position-dependent** when the tool has no network-facing part
//!    (`serve` off). A position-independent executable is relocated by the
//!    loader at every start. The default tool links the schema machinery
//!    (`--schema`), and its tables of pointers come to about 16,000
//!    relocations over some 75 pages, each page copied on write: about 90
//!    of a start's 200 page faults (docs/cli.md, "Start-up"). Linked at a fixed address they are resolved once, by the
//!    linker. The cost is that the executable's own image is not at a
//!    random address (the libraries, stack and heap still are); a `serve`
//!    build, which answers the network, keeps that protection, and
//!    `ACTIONSTREAM_PIE=1` keeps it for any build.
//!
//! 2. **libgcc's unwinder linked in** (glibc targets): Rust's standard
//!    library asks for `-lgcc_s`, a shared library loaded at every start
//!    for the unwinder a panic or a backtrace uses. A one-line linker script
//!    named `libgcc_s.so`, found first on the binaries' library path, points
//!    that request at `libgcc_eh.a`, the same unwinder as a static archive
//!    (what a `+crt-static` build links). With `src/bin/actionstream/math.rs`
//!    (no libm) the tool then loads only libc (docs/performance.md has the
//!    start-up figures). Skipped, and the toolchain's default kept, when the C
//!    compiler does not know a `libgcc_eh.a`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo::rerun-if-env-changed=ACTIONSTREAM_PIE");
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=CC");
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    let linux = var("CARGO_CFG_TARGET_OS") == "linux";
    let serve = std::env::var_os("CARGO_FEATURE_SERVE").is_some();
    let pie = var("ACTIONSTREAM_PIE") == "1";
    // A static build (`cargo build-static-cli`) sets its own relocation
    // model and links the unwinder itself: leave it be.
    let static_crt = var("CARGO_CFG_TARGET_FEATURE")
        .split(',')
        .any(|f| f == "crt-static");
    if !linux || static_crt {
        return;
    }
    if !serve && !pie {
        println!("cargo::rustc-link-arg-bins=-no-pie");
    }
    if var("CARGO_CFG_TARGET_ENV") == "gnu" {
        if let Some(dir) = unwinder_redirect() {
            println!("cargo::rustc-link-arg-bins=-L{}", dir.display());
            // Lets the tool's tests check what a start maps.
            println!("cargo::rustc-env=ACTIONSTREAM_STATIC_UNWINDER=1");
        }
    }
}

/// Writes `OUT_DIR/unwinder/libgcc_s.so`, a linker script naming
/// `libgcc_eh.a`, if the C compiler knows that archive; returns its folder.
fn unwinder_redirect() -> Option<PathBuf> {
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_owned());
    let out = Command::new(cc)
        .arg("-print-file-name=libgcc_eh.a")
        .output()
        .ok()?;
    let archive = PathBuf::from(String::from_utf8(out.stdout).ok()?.trim());
    // A compiler that does not know the file prints its bare name.
    if !out.status.success() || !archive.is_absolute() || !archive.is_file() {
        return None;
    }
    let dir = Path::new(&std::env::var_os("OUT_DIR")?).join("unwinder");
    std::fs::create_dir_all(&dir).ok()?;
    let script = format!("INPUT({})\n", archive.display());
    std::fs::write(dir.join("libgcc_s.so"), script).ok()?;
    Some(dir)
}
