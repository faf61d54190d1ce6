//! The dispatcher: failures stay local, the concurrency bound, in-order runs,
//! dry run, the approval queue, and the built-in handlers.
#![cfg(feature = "dispatch")]

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use actionstream::dispatch::{
    handler_fn, DispatchConfigError, DispatchOptions, DispatchResult, Dispatcher, ExecHandler,
    FileHandler, Handler, JsonlHandler, PathRefused, Status,
};
use actionstream::{Action, ActionId, ConfigFile, Event};
use serde_json::{json, Value};

/// A complete action as the parser makes it, with the given id.
fn action(id: u64, name: &str, arguments: Value) -> Action {
    let mut obj = serde_json::Map::new();
    obj.insert("action".into(), json!(name));
    if let Value::Object(m) = arguments {
        obj.extend(m);
    }
    let text = format!("```action\n{}\n```\n", Value::Object(obj));
    let mut a = actionstream::parse_str(&text)
        .into_iter()
        .find_map(|e| match e {
            Event::ActionComplete(a) => Some(*a),
            _ => None,
        })
        .expect("the test action parses");
    a.id = ActionId(id);
    a
}

/// A directory under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> Self {
        static N: AtomicUsize = AtomicUsize::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let p = std::env::temp_dir().join(format!(
            "actionstream-{tag}-{}-{}-{nanos}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn by_id(results: &[DispatchResult], id: u64) -> &DispatchResult {
    results
        .iter()
        .find(|r| r.id == ActionId(id))
        .unwrap_or_else(|| panic!("no result for #{id} in {results:?}"))
}

fn ok_handler() -> impl Handler {
    handler_fn(|a: Action| async move { Ok(json!({"done": a.id})) })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn panic_timeout_and_failure_give_errors_while_the_rest_complete() {
    let d = Dispatcher::new(DispatchOptions::default())
        .handler("ok", ok_handler())
        .handler(
            "boom",
            handler_fn(|_a: Action| async move {
                if true {
                    panic!("kaboom");
                }
                Ok(Value::Null)
            }),
        )
        .handler_with_timeout(
            "slow",
            handler_fn(|_a: Action| async move {
                tokio::time::sleep(Duration::from_secs(10)).await;
                Ok(Value::Null)
            }),
            Duration::from_millis(200),
        )
        .handler(
            "fail",
            handler_fn(|_a: Action| async move { Err("no such issue".to_string()) }),
        );
    let s = d.start();
    let started = Instant::now();
    s.submit(action(0, "ok", json!({})));
    s.submit(action(1, "boom", json!({})));
    s.submit(action(2, "slow", json!({})));
    s.submit(action(3, "fail", json!({})));
    s.submit(action(4, "ok", json!({})));
    s.submit(action(5, "missing", json!({})));
    let results = s.finish().await;
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "the timeout stopped the slow one"
    );
    assert_eq!(results.len(), 6);
    assert!(by_id(&results, 0).ok);
    assert_eq!(by_id(&results, 0).output, json!({"done": 0}));
    assert!(by_id(&results, 4).ok);
    let boom = by_id(&results, 1);
    assert_eq!((boom.ok, boom.status), (false, Status::Panicked));
    assert!(
        boom.error.as_deref().unwrap_or("").contains("kaboom"),
        "{boom:?}"
    );
    let slow = by_id(&results, 2);
    assert_eq!((slow.ok, slow.status), (false, Status::TimedOut));
    assert!(slow.error.as_deref().unwrap_or("").contains("timed out"));
    let fail = by_id(&results, 3);
    assert_eq!((fail.ok, fail.status), (false, Status::Failed));
    assert_eq!(fail.error.as_deref(), Some("no such issue"));
    let missing = by_id(&results, 5);
    assert_eq!((missing.ok, missing.status), (false, Status::NoHandler));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_default_timeout_applies_to_every_handler() {
    let options = DispatchOptions {
        timeout: Duration::from_millis(100),
        ..DispatchOptions::default()
    };
    let d = Dispatcher::new(options).handler(
        "slow",
        handler_fn(|_a: Action| async move {
            tokio::time::sleep(Duration::from_secs(10)).await;
            Ok(Value::Null)
        }),
    );
    let mut s = d.start();
    s.submit(action(0, "slow", json!({})));
    let r = s.next().await.unwrap();
    assert_eq!(r.status, Status::TimedOut);
    s.close();
    assert!(s.next().await.is_none());
}

/// A handler that records how many of its calls run at once.
fn counting(current: Arc<AtomicUsize>, peak: Arc<AtomicUsize>, ms: u64) -> impl Handler {
    handler_fn(move |a: Action| {
        let (current, peak) = (current.clone(), peak.clone());
        async move {
            let now = current.fetch_add(1, Ordering::SeqCst) + 1;
            peak.fetch_max(now, Ordering::SeqCst);
            tokio::time::sleep(Duration::from_millis(ms)).await;
            current.fetch_sub(1, Ordering::SeqCst);
            Ok(json!(a.id))
        }
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_most_max_concurrent_handlers_run_at_once() {
    let (current, peak) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let options = DispatchOptions {
        max_concurrent: 2,
        ..DispatchOptions::default()
    };
    let d = Dispatcher::new(options).handler("work", counting(current, peak.clone(), 40));
    let s = d.start();
    for i in 0..8 {
        s.submit(action(i, "work", json!({})));
    }
    let results = s.finish().await;
    assert_eq!(results.len(), 8);
    assert!(results.iter().all(|r| r.ok));
    assert_eq!(peak.load(Ordering::SeqCst), 2);
}

/// A handler whose earlier actions take longer.
fn slower_first() -> impl Handler {
    handler_fn(|a: Action| async move {
        tokio::time::sleep(Duration::from_millis(40 * (6 - a.id.0))).await;
        Ok(json!(a.id))
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn results_come_in_completion_order_by_default() {
    let options = DispatchOptions {
        max_concurrent: 8,
        ..DispatchOptions::default()
    };
    let s = Dispatcher::new(options)
        .handler("w", slower_first())
        .start();
    for i in 0..6 {
        s.submit(action(i, "w", json!({})));
    }
    let ids: Vec<u64> = s.finish().await.iter().map(|r| r.id.0).collect();
    assert_eq!(ids, [5, 4, 3, 2, 1, 0]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_order_runs_one_at_a_time_in_action_order() {
    let (current, peak) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let options = DispatchOptions {
        in_order: true,
        ..DispatchOptions::default()
    };
    let s = Dispatcher::new(options)
        .handler("w", slower_first())
        .handler("c", counting(current, peak.clone(), 10))
        .handler(
            "f",
            handler_fn(|_a: Action| async move { Err("no".to_string()) }),
        )
        .start();
    for i in 0..6 {
        let name = ["w", "c", "f"][i as usize % 3];
        s.submit(action(i, name, json!({})));
    }
    let results = s.finish().await;
    let ids: Vec<u64> = results.iter().map(|r| r.id.0).collect();
    assert_eq!(ids, [0, 1, 2, 3, 4, 5]);
    assert_eq!(peak.load(Ordering::SeqCst), 1);
    assert!(!results[2].ok && results[3].ok);
}

#[tokio::test]
async fn dry_run_runs_no_handler() {
    let ran = Arc::new(AtomicBool::new(false));
    let flag = ran.clone();
    let options = DispatchOptions {
        dry_run: true,
        ..DispatchOptions::default()
    };
    let s = Dispatcher::new(options)
        .handler(
            "deploy",
            handler_fn(move |_a: Action| {
                let flag = flag.clone();
                async move {
                    flag.store(true, Ordering::SeqCst);
                    Ok(Value::Null)
                }
            }),
        )
        .start();
    s.submit(action(0, "deploy", json!({"env": "prod"})));
    s.submit(action(1, "unknown", json!({})));
    let results = s.finish().await;
    assert!(!ran.load(Ordering::SeqCst));
    let r = by_id(&results, 0);
    assert_eq!((r.ok, r.status), (true, Status::DryRun));
    assert_eq!(r.output, json!({"dry_run": true, "handler": "custom"}));
    assert_eq!(by_id(&results, 1).status, Status::NoHandler);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn approval_queue_holds_chosen_actions_until_decided() {
    let options = DispatchOptions {
        approval: actionstream::dispatch::ApprovalPolicy::names(["deploy"]),
        ..DispatchOptions::default()
    };
    let mut s = Dispatcher::new(options)
        .handler("deploy", ok_handler())
        .handler("note", ok_handler())
        .start();
    s.submit(action(0, "deploy", json!({"env": "prod"})));
    s.submit(action(1, "note", json!({})));
    s.submit(action(2, "deploy", json!({"env": "staging"})));
    let mut first = Vec::new();
    for _ in 0..3 {
        first.push(s.next().await.unwrap());
    }
    assert_eq!(by_id(&first, 0).status, Status::Queued);
    assert!(!by_id(&first, 0).ok);
    assert_eq!(by_id(&first, 0).output, json!({"queued": true}));
    assert_eq!(by_id(&first, 1).status, Status::Done);
    assert_eq!(by_id(&first, 2).status, Status::Queued);

    let pending = s.pending();
    assert_eq!(pending.iter().map(|p| p.id.0).collect::<Vec<_>>(), [0, 2]);
    assert_eq!(pending[0].arguments, json!({"env": "prod"}));

    s.close();
    s.approve(ActionId(0)).unwrap();
    s.reject(ActionId(2), "not today").unwrap();
    assert!(s.approve(ActionId(0)).is_err(), "decided already");
    assert!(s.reject(ActionId(1), "").is_err(), "never queued");
    assert!(s.pending().is_empty());
    let rest = s.finish().await;
    assert_eq!(rest.len(), 2);
    let approved = by_id(&rest, 0);
    assert_eq!((approved.ok, approved.status), (true, Status::Done));
    assert_eq!(approved.output, json!({"done": 0}));
    let rejected = by_id(&rest, 2);
    assert_eq!((rejected.ok, rejected.status), (false, Status::Rejected));
    assert_eq!(rejected.error.as_deref(), Some("rejected: not today"));
}

async fn run_one(h: &dyn Handler, a: Action) -> Result<Value, String> {
    h.call(a).await
}

#[tokio::test]
async fn file_handler_refuses_every_escape() {
    let base = TempDir::new("file-escape");
    let root = base.path().join("root");
    let outside = base.path().join("outside");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    let h = FileHandler::new(&root);

    let lexical: [(&str, PathRefused); 9] = [
        ("/etc/passwd", PathRefused::Absolute),
        ("../x", PathRefused::ParentDir),
        ("a/../../x", PathRefused::ParentDir),
        ("a/../b", PathRefused::ParentDir),
        ("C:\\x", PathRefused::Absolute),
        ("\\x", PathRefused::Absolute),
        ("a\\..\\..\\x", PathRefused::Backslash),
        ("", PathRefused::Empty),
        ("a\0b", PathRefused::Nul),
    ];
    for (path, why) in &lexical {
        assert_eq!(h.resolve(path).as_ref(), Err(why), "{path:?}");
        let r = run_one(&h, action(0, "save", json!({"path": path, "content": "x"}))).await;
        assert!(r.is_err(), "{path:?} was written");
    }
    for path in [".", "dir/", "C:x"] {
        assert!(h.resolve(path).is_err(), "{path:?}");
    }

    #[cfg(unix)]
    {
        // A directory link inside the root that leads outside.
        std::os::unix::fs::symlink(&outside, root.join("out")).unwrap();
        assert!(matches!(h.resolve("out/x"), Err(PathRefused::Escapes(_))));
        let r = run_one(
            &h,
            action(0, "save", json!({"path": "out/x", "content": "x"})),
        )
        .await;
        assert!(r.unwrap_err().contains("leads out of the root"));
        // A file link, even one that stays inside.
        std::fs::write(outside.join("target"), "secret").unwrap();
        std::os::unix::fs::symlink(outside.join("target"), root.join("t")).unwrap();
        assert!(matches!(h.resolve("t"), Err(PathRefused::Symlink(_))));
        std::fs::write(root.join("inner"), "").unwrap();
        std::os::unix::fs::symlink(root.join("inner"), root.join("t2")).unwrap();
        assert!(matches!(h.resolve("t2"), Err(PathRefused::Symlink(_))));
        // A directory link that stays inside is fine.
        std::fs::create_dir_all(root.join("real")).unwrap();
        std::os::unix::fs::symlink(root.join("real"), root.join("alias")).unwrap();
        assert!(h.resolve("alias/ok.txt").is_ok());
    }
    // Nothing reached the outside directory.
    let names: Vec<_> = std::fs::read_dir(&outside)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(names.iter().all(|n| n == "target"), "{names:?}");
    assert_eq!(
        std::fs::read_to_string(outside.join("target")).unwrap_or_default(),
        "secret"
    );
    assert!(!base.path().join("x").exists());
}

#[tokio::test]
async fn file_handler_writes_and_appends_legit_paths() {
    let base = TempDir::new("file-ok");
    let root = base.path().join("root"); // created on first use
    let h = FileHandler::new(&root);
    let out = run_one(
        &h,
        action(
            0,
            "save",
            json!({"path": "notes/today.md", "content": "one", "mode": "write"}),
        ),
    )
    .await
    .unwrap();
    assert_eq!(
        out,
        json!({"path": "notes/today.md", "mode": "write", "bytes": 3})
    );
    run_one(
        &h,
        action(
            1,
            "save",
            json!({"path": "./notes/today.md", "content": "two", "mode": "append"}),
        ),
    )
    .await
    .unwrap();
    // `filename` as in the seeds; append is the default mode.
    run_one(
        &h,
        action(
            2,
            "save",
            json!({"filename": "notes/today.md", "content": "three"}),
        ),
    )
    .await
    .unwrap();
    assert_eq!(
        std::fs::read_to_string(root.join("notes/today.md")).unwrap(),
        "onetwo\nthree\n"
    );
    run_one(
        &h,
        action(
            3,
            "save",
            json!({"path": "notes/today.md", "content": "new", "mode": "write"}),
        ),
    )
    .await
    .unwrap();
    assert_eq!(
        std::fs::read_to_string(root.join("notes/today.md")).unwrap(),
        "new"
    );
    // Default file name, as in the seeds.
    run_one(&h, action(4, "save", json!({"content": "x"})))
        .await
        .unwrap();
    assert_eq!(
        std::fs::read_to_string(root.join("output.md")).unwrap(),
        "x\n"
    );
    // Bad arguments are errors, not writes.
    for args in [
        json!({"path": "a.md"}),
        json!({"path": "a.md", "content": "x", "mode": "truncate"}),
        json!({"path": 5, "content": "x"}),
    ] {
        assert!(
            run_one(&h, action(5, "save", args.clone())).await.is_err(),
            "{args}"
        );
    }
    assert!(!root.join("a.md").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn jsonl_handler_appends_one_line_per_action() {
    let dir = TempDir::new("jsonl");
    let path = dir.path().join("audit.jsonl");
    let s = Dispatcher::new(DispatchOptions::default())
        .handler("audit", JsonlHandler::new(&path))
        .start();
    for i in 0..5 {
        s.submit(action(i, "audit", json!({"n": i, "text": "a\nb"})));
    }
    let results = s.finish().await;
    assert!(results
        .iter()
        .all(|r| r.ok && r.output == json!({"appended": true})));
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 5);
    lines.sort_by_key(|v| v["id"].as_u64());
    for (i, v) in lines.iter().enumerate() {
        assert_eq!(v["id"], json!(i));
        assert_eq!(v["name"], "audit");
        assert_eq!(v["arguments"], json!({"n": i, "text": "a\nb"}));
        assert_eq!(v["syntax"], "fence");
        assert!(v["time_ms"].as_u64().is_some());
    }
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_handler_runs_the_configured_program_with_the_action_on_stdin() {
    let a = action(7, "deploy", json!({"env": "prod"}));
    let cat = ExecHandler::new("/bin/cat", Vec::<String>::new());
    let out = run_one(&cat, a.clone()).await.unwrap();
    assert_eq!(out, actionstream::wire::action_json(&a));

    let text = ExecHandler::new("sh", ["-c", "read line; echo done"]);
    assert_eq!(run_one(&text, a.clone()).await.unwrap(), json!("done"));

    let fail = ExecHandler::new("sh", ["-c", "echo oops >&2; exit 3"]);
    let e = run_one(&fail, a.clone()).await.unwrap_err();
    assert!(e.contains("oops") && e.contains('3'), "{e}");

    let missing = ExecHandler::new("/nonexistent/program", Vec::<String>::new());
    assert!(run_one(&missing, a.clone())
        .await
        .unwrap_err()
        .contains("cannot run"));

    // Killed at its timeout: the marker file is never written.
    let dir = TempDir::new("exec");
    let marker = dir.path().join("marker");
    let script = format!("sleep 2; touch '{}'", marker.display());
    let slow = ExecHandler::new("sh", ["-c", script.as_str()]).timeout(Duration::from_millis(200));
    let started = Instant::now();
    let e = run_one(&slow, a.clone()).await.unwrap_err();
    assert!(e.contains("timed out") && e.contains("killed"), "{e}");
    assert!(started.elapsed() < Duration::from_secs(2));
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert!(!marker.exists(), "the program was not killed");
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn builtins_come_from_the_configuration() {
    let dir = TempDir::new("config");
    let file: ConfigFile = serde_json::from_value(json!({
        "actions": {"types": ["note"], "handlers": {"decision": "builtin:log"}},
        "handlers": {"save": "builtin:file", "audit": "builtin:jsonl", "shout": "builtin:exec"},
        "file_root": "out",
        "jsonl_path": "audit.jsonl",
        "exec": {"shout": {"program": "sh", "args": ["-c", "tr a-z A-Z"], "timeout_secs": 5}},
        "max_concurrent": 2,
        "require_approval": ["shout"],
    }))
    .unwrap();
    let d = Dispatcher::from_config(&file.dispatch_config(Default::default()), dir.path()).unwrap();
    assert_eq!(d.names(), ["audit", "decision", "note", "save", "shout"]);
    assert_eq!(d.options().max_concurrent, 2);
    let s = d.start();
    s.submit(action(0, "note", json!({"content": "hi"})));
    s.submit(action(
        1,
        "save",
        json!({"path": "a.txt", "content": "hello", "mode": "write"}),
    ));
    s.submit(action(2, "audit", json!({})));
    s.submit(action(3, "shout", json!({"text": "hey"})));
    assert_eq!(s.pending().len(), 1);
    s.approve(ActionId(3)).unwrap();
    let results = s.finish().await;
    assert_eq!(by_id(&results, 0).output, json!({"logged": true}));
    assert!(by_id(&results, 1).ok);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("out/a.txt")).unwrap(),
        "hello"
    );
    assert!(by_id(&results, 2).ok);
    assert!(dir.path().join("audit.jsonl").exists());
    let shout: Vec<_> = results.iter().filter(|r| r.id == ActionId(3)).collect();
    assert_eq!(shout.len(), 2, "queued, then done");
    assert_eq!(shout[1].output["ARGUMENTS"], json!({"TEXT": "HEY"}));

    let bad = |v: Value| {
        let file: ConfigFile = serde_json::from_value(v).unwrap();
        Dispatcher::from_config(&file.dispatch_config(Default::default()), dir.path())
    };
    assert!(matches!(
        bad(json!({"handlers": {"x": "builtin:github-issue"}})),
        Err(DispatchConfigError::UnknownBuiltin { .. })
    ));
    assert!(matches!(
        bad(json!({"actions": {"handlers": {"x": "actions/decision-handler.ts"}}})),
        Err(DispatchConfigError::Unsupported { .. })
    ));
    for missing in [
        json!({"handlers": {"x": "builtin:file"}}),
        json!({"handlers": {"x": "builtin:jsonl"}}),
        json!({"handlers": {"x": "builtin:exec"}, "exec": {"y": {"program": "sh"}}}),
    ] {
        assert!(matches!(
            bad(missing),
            Err(DispatchConfigError::Missing { .. })
        ));
    }
}
