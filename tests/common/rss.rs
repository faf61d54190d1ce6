//! Peak resident memory of a piece of work, measured in a child process
//! (the test binary run again on one test) so that no other test's
//! allocations count. Linux only (`/proc/self/status`).

const CHILD: &str = "ACTIONSTREAM_RSS_CHILD";

/// Whether this process is the child that does the work.
pub fn in_child() -> bool {
    std::env::var_os(CHILD).is_some()
}

/// In the child: does `work` and prints how much the peak resident set grew.
pub fn report(work: impl FnOnce()) {
    let before = hwm_kib();
    work();
    println!("RSS_GROWTH_KIB={}", hwm_kib() - before);
}

/// In the parent: runs the test `name` in a child process and returns how
/// much its peak resident set grew, in KiB.
pub fn growth_kib(name: &str) -> usize {
    let exe = std::env::current_exe().unwrap();
    let child = std::process::Command::new(exe)
        .args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&child.stdout);
    assert!(
        child.status.success(),
        "child failed: {stdout}\n{}",
        String::from_utf8_lossy(&child.stderr)
    );
    let growth = stdout
        .lines()
        .find_map(|l| l.split("RSS_GROWTH_KIB=").nth(1))
        .unwrap_or_else(|| panic!("the child reports no peak: {stdout}"))
        .trim()
        .parse()
        .unwrap();
    eprintln!("peak RSS growth: {growth} KiB");
    growth
}

fn hwm_kib() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}
