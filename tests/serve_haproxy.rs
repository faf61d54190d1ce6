//! More than one machine (contract, section 11): HAProxy (Debian's
//! package) in front of three `actionstream serve` replicas on loopback,
//! health checks on `/ready`; 1,000 concurrent streams; one replica sent
//! SIGTERM mid-load. No stream is lost or cut. Prints the requests each
//! replica served.
#![cfg(all(feature = "serve", feature = "cli", unix))]

mod gateway;

use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use gateway::process::Process;
use gateway::{Reply, Script, Upstream};
use serde_json::json;

/// Concurrent streams.
const STREAMS: usize = 1000;

/// The HAProxy configuration, whole (the docs give it as it is here);
/// `{front}` and `{servers}` are filled in.
const CONFIG: &str = "\
global
    log stderr format raw local0 notice
    maxconn 4000

defaults
    mode http
    timeout connect 2s
    timeout client 60s
    timeout server 60s
    # A draining replica refuses connections or answers 503: try the
    # request again, on another replica.
    retries 3
    option redispatch 1
    retry-on conn-failure empty-response 503

frontend gateway
    bind {front}
    default_backend replicas

backend replicas
    balance roundrobin
    option httpchk GET /ready
    http-check expect status 200
    timeout check 2s
    default-server inter 250ms fall 2 rise 2
{servers}";

fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

struct Haproxy(Child);

impl Drop for Haproxy {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn haproxy_spreads_1000_streams_over_3_replicas_and_a_drained_one_loses_none() {
    let found = Command::new("haproxy")
        .arg("-v")
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !gateway::have("haproxy", found, "apt-get install haproxy") {
        return;
    }
    let text: String = (0..60).map(|i| format!("piece {i:02}; ")).collect();
    let script = Script::new(&text)
        .delta_chars(30)
        .pace(Duration::from_millis(75));
    let up = Upstream::start(move |_| Reply::Stream(script.clone())).await;

    let replicas: Vec<Process> = (0..3)
        .map(|_| Process::start(&["--upstream", &up.url, "--drain-seconds", "30"]))
        .collect();
    let front = format!("127.0.0.1:{}", free_port());
    let servers: String = replicas
        .iter()
        .enumerate()
        .map(|(i, r)| {
            format!(
                "    server r{i} {} check\n",
                r.base.trim_start_matches("http://")
            )
        })
        .collect();
    let config = CONFIG
        .replace("{front}", &front)
        .replace("{servers}", &servers);
    let dir = std::env::temp_dir().join(format!("actionstream-haproxy-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("haproxy.cfg");
    std::fs::write(&path, &config).unwrap();
    let _haproxy = Haproxy(
        Command::new("haproxy")
            .arg("-db")
            .arg("-f")
            .arg(&path)
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(dir.join("haproxy.log")).unwrap())
            .spawn()
            .unwrap(),
    );
    let base = format!("http://{front}");
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(STREAMS)
        .build()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Ok(r) = client.get(format!("{base}/ready")).send().await {
            if r.status() == 200 {
                break;
            }
        }
        assert!(Instant::now() < deadline, "HAProxy did not come up");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    // 1,000 streams, started over about a second; each lasts about 1.5 s
    // once it has begun (on a loaded machine the starts spread out more).
    let started = Instant::now();
    let open = Arc::new(AtomicUsize::new(0));
    let most = Arc::new(AtomicUsize::new(0));
    let mut tasks = Vec::new();
    for i in 0..STREAMS {
        let client = client.clone();
        let url = format!("{base}/v1/chat/completions");
        let open = open.clone();
        let most = most.clone();
        tasks.push(tokio::spawn(async move {
            tokio::time::sleep(Duration::from_micros(1000 * i as u64)).await;
            let body = json!({"model": "m", "stream": true,
                              "messages": [{"role": "user", "content": "count"}]});
            let response = client.post(&url).json(&body).send().await;
            let response = match response {
                Ok(r) if r.status() == 200 => r,
                Ok(r) => return Err(format!("stream {i}: status {}", r.status())),
                Err(e) => return Err(format!("stream {i}: {e}")),
            };
            let now = open.fetch_add(1, Ordering::SeqCst) + 1;
            most.fetch_max(now, Ordering::SeqCst);
            let answer = gateway::read_stream(response, 0, |_| true).await;
            open.fetch_sub(1, Ordering::SeqCst);
            Ok(answer)
        }));
    }
    // Mid-load (a third of the streams open): replica 0 is sent SIGTERM
    // while streams are open on it.
    let deadline = Instant::now() + Duration::from_secs(60);
    while open.load(Ordering::SeqCst) < STREAMS / 3 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let open_at_signal = open.load(Ordering::SeqCst);
    replicas[0].signal("TERM");
    let signalled = started.elapsed();

    let mut failures = Vec::new();
    let mut complete = 0;
    for t in tasks {
        match t.await.unwrap() {
            Ok(answer) => {
                if answer.content == text && answer.done && answer.errors.is_empty() {
                    complete += 1;
                } else {
                    failures.push(format!(
                        "cut: {} of {} bytes, errors {:?}, done {}",
                        answer.content.len(),
                        text.len(),
                        answer.errors,
                        answer.done
                    ));
                }
            }
            Err(e) => failures.push(e),
        }
    }
    let took = started.elapsed();
    let mut replicas = replicas;
    let status = replicas[0].exit_within(Duration::from_secs(40));
    assert!(status.success(), "the drained replica exits 0: {status:?}");

    let served: Vec<(usize, usize)> = replicas
        .iter()
        .map(|r| {
            let access = r.access();
            let ok = access.iter().filter(|v| v["status"] == 200).count();
            let refused = access.iter().filter(|v| v["status"] == 503).count();
            (ok, refused)
        })
        .collect();
    println!("HAPROXY_STREAMS={STREAMS}");
    println!("HAPROXY_COMPLETE={complete}");
    println!("HAPROXY_OPEN_AT_SIGTERM={open_at_signal}");
    println!("HAPROXY_MOST_OPEN={}", most.load(Ordering::SeqCst));
    println!("HAPROXY_SIGTERM_AT_MS={}", signalled.as_millis());
    println!("HAPROXY_SECONDS={:.1}", took.as_secs_f64());
    for (i, (ok, refused)) in served.iter().enumerate() {
        println!("HAPROXY_REPLICA_{i}_SERVED={ok} HAPROXY_REPLICA_{i}_ANSWERED_503={refused}");
    }
    if !failures.is_empty() {
        let log = std::fs::read_to_string(dir.join("haproxy.log")).unwrap_or_default();
        println!("{}", &log[log.len().saturating_sub(3000)..]);
    }
    assert!(
        failures.is_empty(),
        "{} of {STREAMS} streams lost or cut; first: {:#?}",
        failures.len(),
        &failures[..failures.len().min(5)]
    );
    assert_eq!(complete, STREAMS);
    assert_eq!(served.iter().map(|s| s.0).sum::<usize>(), STREAMS);
    assert!(served[0].0 > 0, "the drained replica had streams open");
    let _ = std::fs::remove_dir_all(&dir);
}
