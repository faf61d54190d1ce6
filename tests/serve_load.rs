//! 1,000 concurrent streams through the gateway, run as its own process
//! (`actionstream serve`), and the memory each open stream costs it.
#![cfg(all(feature = "serve", feature = "cli"))]

mod gateway;

use std::time::{Duration, Instant};

use futures::future::join_all;
use gateway::{Reply, Script, Upstream};
use serde_json::json;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::sync::mpsc;

const STREAMS: usize = 1000;
const WARM_UP: usize = 20;
/// Streams opened at once.
const BATCH: usize = 100;

/// The resident set of process `pid`, in bytes.
fn rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .expect("a VmRSS line");
    let kb: u64 = line
        .split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap();
    kb * 1024
}

/// Starts `actionstream serve` (the binary under test, or
/// `$ACTIONSTREAM_GATEWAY_BIN`) in front of `upstream`; returns the child
/// and its base URL, read from its log.
async fn start_gateway(upstream: &str) -> (tokio::process::Child, String) {
    let bin = std::env::var("ACTIONSTREAM_GATEWAY_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_actionstream").to_owned());
    let mut child = tokio::process::Command::new(bin)
        .args([
            "serve",
            "--upstream",
            upstream,
            "--listen",
            "127.0.0.1:0",
            "--dialect",
            "qwen3_coder",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let url = tokio::time::timeout(Duration::from_secs(30), async {
        while let Some(line) = lines.next_line().await.unwrap() {
            if let Some(at) = line.find("listening on http://") {
                return line[at + "listening on ".len()..]
                    .split_whitespace()
                    .next()
                    .unwrap()
                    .to_owned();
            }
        }
        panic!("the gateway ended before it listened");
    })
    .await
    .expect("the gateway says where it listens");
    // Keep reading its log, so that it never blocks on a full pipe.
    tokio::spawn(async move {
        while let Ok(Some(line)) = lines.next_line().await {
            if line.contains("WARN") || line.contains("ERROR") || line.contains("refused") {
                eprintln!("gateway: {line}");
            }
        }
    });
    (child, url)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_concurrent_streams_all_correct_and_the_memory_each_costs() {
    let upstream = Upstream::start(|request| {
        let script = Script::new(&gateway::weather_output());
        if request["model"] == "warm-up" {
            Reply::Stream(script)
        } else {
            Reply::Stream(script.hold_after("</tool_call>"))
        }
    })
    .await;
    let (child, url) = start_gateway(&upstream.url).await;
    let pid = child.id().unwrap();
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(STREAMS)
        .build()
        .unwrap();
    let body = |model: &str| gateway::request(model, gateway::weather_tools());
    let expected = [
        json!({"city": "Dallas", "state": "TX", "unit": "fahrenheit"}),
        json!({"city": "Orlando", "state": "FL", "unit": "fahrenheit"}),
    ];
    let check = |a: &gateway::Answer| {
        assert!(a.done && a.errors.is_empty(), "{a:?}");
        assert_eq!(a.calls.len(), 2, "{a:?}");
        assert_eq!(a.arguments(0).as_ref(), Some(&expected[0]));
        assert_eq!(a.arguments(1).as_ref(), Some(&expected[1]));
        assert_eq!(a.finish.as_deref(), Some("tool_calls"));
    };

    // Warm-up: the runtime's threads, the pools, the parser's tables.
    let warm = join_all((0..WARM_UP).map(|_| {
        let request = client
            .post(format!("{url}/v1/chat/completions"))
            .json(&body("warm-up"));
        async move { gateway::read_stream(request.send().await.unwrap(), 0, |_| true).await }
    }))
    .await;
    warm.iter().for_each(check);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let before = rss(pid);

    // The streams open in waves of BATCH, each wave once the one before has
    // its first calls, so that 1,000 connects at once (twice: client to
    // gateway, gateway to upstream) do not overflow the listeners' accept
    // queues; then all 1,000 are open at the same time.
    let started = Instant::now();
    let (have_first, mut firsts) = mpsc::unbounded_channel::<()>();
    let mut streams = Vec::with_capacity(STREAMS);
    let mut have = 0;
    for wave in 0..STREAMS / BATCH {
        for _ in 0..BATCH {
            let request = client
                .post(format!("{url}/v1/chat/completions"))
                .json(&body("Qwen/Qwen3-Coder-30B-A3B-Instruct"));
            let have_first = have_first.clone();
            streams.push(tokio::spawn(async move {
                let response = request.send().await.unwrap();
                assert_eq!(
                    response.status(),
                    200,
                    "{:?}",
                    response.text().await.unwrap_or_default()
                );
                let mut told = false;
                gateway::read_stream(response, 0, move |a| {
                    if !told && a.arguments(0).is_some() {
                        told = true;
                        have_first.send(()).unwrap();
                    }
                    true
                })
                .await
            }));
        }
        let wave_done = tokio::time::timeout(Duration::from_secs(60), async {
            while have < (wave + 1) * BATCH {
                firsts
                    .recv()
                    .await
                    .expect("every stream gets its first call");
                have += 1;
            }
        })
        .await;
        assert!(
            wave_done.is_ok(),
            "the streams have their first call while the upstream holds: \
             {have} have it, the upstream received {} requests, {} are held",
            upstream.received().len(),
            upstream.reached(0)
        );
    }
    assert!(
        upstream
            .wait_for(Duration::from_secs(10), |u| u.reached(0) == STREAMS)
            .await,
        "every upstream stream is held"
    );
    assert_eq!(upstream.finished(), WARM_UP);
    let open_after = started.elapsed();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let held = rss(pid);
    let per_stream = held.saturating_sub(before) / STREAMS as u64;
    eprintln!(
        "gateway RSS: {:.1} MiB before, {:.1} MiB with {STREAMS} streams open \
         ({:.1} KiB per stream); all open with their first call in {:.2} s",
        before as f64 / 1048576.0,
        held as f64 / 1048576.0,
        per_stream as f64 / 1024.0,
        open_after.as_secs_f64()
    );

    upstream.release(1);
    let answers = tokio::time::timeout(Duration::from_secs(120), join_all(streams))
        .await
        .expect("every stream ends");
    for answer in answers {
        check(&answer.unwrap());
    }
    assert_eq!(upstream.finished(), WARM_UP + STREAMS);
    assert!(
        per_stream < 256 * 1024,
        "{per_stream} bytes per open stream is more than expected"
    );
}

/// A bad upstream URL, an unknown dialect or a key variable that is not
/// set: exit status 2 and a one-line message, before listening.
#[test]
fn bad_serve_usage_exits_2_with_a_message() {
    for (args, says) in [
        (&["--upstream", "ftp://x/v1"][..], "must be http or https"),
        (
            &["--upstream", "http://x/v1", "--dialect", "qwen"],
            "unknown dialect `qwen`",
        ),
        (
            &[
                "--upstream",
                "http://x/v1",
                "--upstream-key-env",
                "ACTIONSTREAM_TEST_UNSET_KEY",
            ],
            "the variable is not set",
        ),
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_actionstream"))
            .arg("serve")
            .args(args)
            .env_remove("ACTIONSTREAM_TEST_UNSET_KEY")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(says), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
    }
}
