//! The built `actionstream serve` as a child process, its log lines
//! gathered (for the drain and load-balancer tests).

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The gateway as a process, its log lines gathered.
pub struct Process {
    pub child: Child,
    /// Its base URL, `http://127.0.0.1:PORT`.
    pub base: String,
    lines: Arc<Mutex<Vec<String>>>,
}

impl Process {
    /// Starts `actionstream serve` with these options (and `--listen
    /// 127.0.0.1:0 --log-format json`).
    pub fn start(args: &[&str]) -> Process {
        let mut child = Command::new(env!("CARGO_BIN_EXE_actionstream"))
            .arg("serve")
            .args(["--listen", "127.0.0.1:0", "--log-format", "json"])
            .args(args)
            .env("ACTIONSTREAM_TEST_UPSTREAM_KEY", "sk-upstream-secret")
            .env_remove("RUST_LOG")
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stderr = child.stderr.take().unwrap();
        let lines = Arc::new(Mutex::new(Vec::new()));
        let (tx, rx) = std::sync::mpsc::channel();
        let gathered = lines.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(at) = line.find("listening on http://") {
                    let addr = line[at + "listening on ".len()..]
                        .split('"')
                        .next()
                        .unwrap_or("")
                        .to_owned();
                    let _ = tx.send(addr);
                }
                gathered.lock().unwrap().push(line);
            }
        });
        let base = rx
            .recv_timeout(Duration::from_secs(20))
            .expect("the gateway says where it listens");
        Process { child, base, lines }
    }

    /// Sends the signal `name` (`TERM`, `INT`) with `kill`.
    pub fn signal(&self, name: &str) {
        let status = Command::new("kill")
            .args([&format!("-{name}"), &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
    }

    /// Waits for the exit, at most `limit`.
    pub fn exit_within(&mut self, limit: Duration) -> std::process::ExitStatus {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "the gateway did not exit in {limit:?}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The log lines so far.
    pub fn lines(&self) -> Vec<String> {
        self.lines.lock().unwrap().clone()
    }

    /// The access lines (one per request) so far, as JSON.
    pub fn access(&self) -> Vec<serde_json::Value> {
        self.lines()
            .iter()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter(|v| v["target"] == "actionstream::access")
            .collect()
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
