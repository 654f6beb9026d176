//! Team servers and organizations against a real hub, on both back ends: the issue's "done when"
//! (a new user signs in, creates a team server, adds a second account, both see it), roles
//! enforced by the hub and named by the CLI, a removed member's Cowork dropping the team server
//! at its next poll, a group edit re-applied after a concurrent save, run reports of an installed
//! app, and who a routine runs for (`ctx.identity`, `ctx.auth`, the audit's ids).

use crate::hub_support::*;
use crate::support::*;
use cowork_wire::hub::{NewOrg, OrgMemberAdd, Role};
use serde_json::{json, Value};
use std::path::Path;

fn settings(hub: &Hub) -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(&regex_escape(hub.url()), "[HUB]");
    settings.add_filter(r"\d{4}-\d\d-\d\d \d\d:\d\d", "[DATE]");
    settings.add_filter(r"cowork(\.exe)?\b", "cowork");
    settings
}

/// The `--json` failure line's error name.
pub(crate) fn error_name(out: &std::process::Output) -> String {
    let line: Value =
        serde_json::from_str(stdout(out).trim()).unwrap_or_else(|_| panic!("{}", transcript(out)));
    line["error"]["name"].as_str().unwrap().to_string()
}

/// Ana (the owner of `acme-apps`) and Bob, each signed in on a machine of their own.
pub(crate) struct Two<H = Hub> {
    pub(crate) hub: H,
    pub(crate) ana: Env,
    pub(crate) bob: Env,
}

fn two(backend: Backend) -> Two {
    two_on(Hub::start(backend), Path::new(env!("CARGO_BIN_EXE_cowork")))
}

/// [`two`] on `hub`, both machines running the `cowork` binary `bin`.
fn two_on<H: AnyHub>(hub: H, bin: &Path) -> Two<H> {
    hub.account("ana@example.com");
    hub.account("bob@example.com");
    let (ana, bob) = (Env::new(runtimes()[0]).running(bin), Env::new(runtimes()[0]).running(bin));
    ana.signed_in(&hub, "ana@example.com");
    bob.signed_in(&hub, "bob@example.com");
    let created = ana.json(&["team-server", "create", "Acme apps", "--desc", "What we build"]);
    assert_eq!(created["slug"], "acme-apps", "{}: {created}", hub.url());
    Two { hub, ana, bob }
}

/// [`two`], Bob a member of `acme-apps`.
pub(crate) fn with_bob(backend: Backend) -> Two {
    bob_joins(two(backend))
}

/// [`with_bob`] on `hub`, both machines running the `cowork` binary `bin`.
pub(crate) fn with_bob_on<H: AnyHub>(hub: H, bin: &Path) -> Two<H> {
    bob_joins(two_on(hub, bin))
}

fn bob_joins<H>(two: Two<H>) -> Two<H> {
    let out = two.ana.run(&["team-server", "members", "add", "acme-apps", "bob@example.com"]);
    assert!(out.status.success(), "{}", transcript(&out));
    two
}

#[test]
fn done_when_a_new_user_signs_in_creates_a_team_server_adds_a_second_account_and_both_see_it() {
    for backend in Backend::BOTH {
        let Two { hub, ana, bob } = two(backend);
        let out = ana.run(&["team-server", "members", "add", "acme-apps", "bob@example.com"]);
        assert!(out.status.success(), "{}", transcript(&out));
        assert_eq!(stdout(&out), "Added bob@example.com to acme-apps as member.\n");

        let ana_sees = ana.run(&["team-server", "list"]);
        let bob_sees = bob.run(&["team-server", "list"]);
        if backend == Backend::Sqlite {
            settings(&hub).bind(|| {
                insta::assert_snapshot!("team_server_list_owner", transcript(&ana_sees));
                insta::assert_snapshot!("team_server_list_member", transcript(&bob_sees));
                let members = ana.run(&["team-server", "members", "acme-apps"]);
                insta::assert_snapshot!("team_server_members", transcript(&members));
                let info = bob.run(&["team-server", "info", "acme-apps"]);
                insta::assert_snapshot!("team_server_info", transcript(&info));
            });
        }
        let listed = bob.json(&["team-server", "list"]);
        assert_eq!(listed["teamServers"][0]["slug"], "acme-apps", "{backend:?}");
        assert_eq!(listed["teamServers"][0]["role"], "member");
        assert_eq!(
            ana.json(&["team-server", "members", "list", "acme-apps"])["members"]
                .as_array()
                .unwrap()
                .len(),
            2
        );
        assert_eq!(
            stdout(&bob.run(&["team-server", "store", "acme-apps"])),
            "acme-apps publishes nothing yet.\n"
        );
    }
}

#[test]
fn a_member_trying_admin_verbs_is_refused_by_name() {
    for backend in Backend::BOTH {
        let Two { hub, ana, bob } = with_bob(backend);
        hub.account("cy@example.com");
        let refusals = [
            (vec!["team-server", "members", "add", "acme-apps", "cy@example.com"], "NotAdmin"),
            (vec!["team-server", "members", "remove", "acme-apps", "ana@example.com"], "NotAdmin"),
            (vec!["team-server", "requests", "acme-apps"], "NotAdmin"),
            (vec!["team-server", "delete", "acme-apps", "--yes"], "NotOwner"),
            (vec!["routine", "runs", "--team-server", "acme-apps"], "NotAdmin"),
        ];
        for (args, name) in refusals {
            let out = bob.run(&[args.as_slice(), &["--json"]].concat());
            assert_eq!(out.status.code(), Some(1), "{backend:?} {args:?}: {}", transcript(&out));
            assert_eq!(error_name(&out), name, "{backend:?} {args:?}");
        }
        if backend == Backend::Sqlite {
            let out = bob.run(&[
                "team-server",
                "members",
                "add",
                "acme-apps",
                "cy@example.com",
                "--admin",
            ]);
            settings(&hub)
                .bind(|| insta::assert_snapshot!("member_tries_admin_verb", transcript(&out)));
        }
        // Another account's private server is not there at all for someone outside it.
        let cy = Env::new(runtimes()[0]);
        cy.signed_in(&hub, "cy@example.com");
        let out = cy.run(&["team-server", "info", "acme-apps", "--json"]);
        assert_eq!(out.status.code(), Some(3), "{}", transcript(&out));
        assert_eq!(error_name(&out), "NotFound");
        // And nothing was changed by the refusals.
        assert_eq!(
            ana.json(&["team-server", "members", "acme-apps"])["members"].as_array().unwrap().len(),
            2
        );
    }
}

#[test]
fn join_requests_wait_for_an_admin_who_approves_or_denies_them() {
    for backend in Backend::BOTH {
        let hub = Hub::start(backend);
        for email in ["ana@example.com", "bob@example.com", "cy@example.com", "di@example.com"] {
            hub.account(email);
        }
        let ana = Env::new(runtimes()[0]);
        ana.signed_in(&hub, "ana@example.com");
        let created = ana.json(&[
            "team-server",
            "create",
            "Open house",
            "--visibility",
            "public",
            "--requires-approval",
        ]);
        assert_eq!(
            (&created["visibility"], &created["requiresApproval"]),
            (&json!("public"), &json!(true))
        );
        let (bob, cy) = (Env::new(runtimes()[0]), Env::new(runtimes()[0]));
        bob.signed_in(&hub, "bob@example.com");
        cy.signed_in(&hub, "cy@example.com");
        let out = bob.run(&["team-server", "join", "open-house", "--note", "I run the demos"]);
        assert_eq!(
            stdout(&out),
            "Asked to join open-house: one of its admins approves the request.\n",
            "{}",
            transcript(&out)
        );
        let asked = cy.json(&["team-server", "join", "open-house"]);
        assert_eq!(
            (asked["status"].as_str(), asked["teamServer"]["slug"].as_str()),
            (Some("requested"), Some("open-house")),
            "camelCase like every other answer: {asked}"
        );
        let waiting = ana.json(&["team-server", "requests", "open-house"]);
        assert_eq!(waiting["requests"].as_array().unwrap().len(), 2, "{backend:?}: {waiting}");
        assert_eq!(waiting["requests"][0]["note"], "I run the demos");
        assert_eq!(
            stdout(&ana.run(&[
                "team-server",
                "members",
                "approve",
                "open-house",
                "bob@example.com"
            ])),
            "bob@example.com is a member of open-house now.\n"
        );
        assert!(ana
            .run(&["team-server", "members", "deny", "open-house", "cy@example.com"])
            .status
            .success());
        assert_eq!(bob.json(&["team-server", "info", "open-house"])["role"], "member");
        assert!(
            cy.json(&["team-server", "info", "open-house"])["role"].is_null(),
            "{backend:?}: denied"
        );
        assert_eq!(
            stdout(&ana.run(&["team-server", "requests", "open-house"])),
            "Nobody is waiting to join open-house.\n"
        );
        // Leaving before an admin answers withdraws the request, and says so.
        let di = Env::new(runtimes()[0]);
        di.signed_in(&hub, "di@example.com");
        assert!(di.run(&["team-server", "join", "open-house"]).status.success());
        let out = di.run(&["team-server", "leave", "open-house"]);
        assert_eq!(
            stdout(&out),
            "Withdrew your request to join open-house.\n",
            "{}",
            transcript(&out)
        );
        assert_eq!(
            stdout(&ana.run(&["team-server", "requests", "open-house"])),
            "Nobody is waiting to join open-house.\n"
        );
        // Leaving, and an owner deleting it for everyone.
        assert_eq!(stdout(&bob.run(&["team-server", "leave", "open-house"])), "Left open-house.\n");
        let refused = ana.run(&["team-server", "delete", "open-house"]);
        assert_eq!(refused.status.code(), Some(2), "--yes is needed");
        assert!(ana.run(&["team-server", "delete", "open-house", "--yes"]).status.success());
        assert_eq!(ana.json(&["team-server", "list"])["teamServers"], json!([]));
    }
}

#[test]
fn a_removed_members_cowork_drops_the_team_server_at_its_next_poll() {
    for backend in Backend::BOTH {
        let Two { hub, ana, bob } = with_bob(backend);
        let daemon = bob.daemon(&[]);
        let http = Http { port: daemon.port };
        let polled = |http: &Http| {
            http.json("POST", "/api/account/changed", &bob.owner_token(), Some(&json!({}))).1
        };
        let seen = polled(&http);
        assert_eq!(seen["user"]["email"], "bob@example.com", "{backend:?}: {seen}");
        assert_eq!(
            seen["teamServers"],
            json!([{"slug": "acme-apps", "name": "Acme apps", "role": "member"}])
        );
        assert!(stdout(&bob.run(&["status"])).contains("team servers: acme-apps (member)"));

        assert!(ana
            .run(&["team-server", "members", "remove", "acme-apps", "bob@example.com"])
            .status
            .success());
        // Twice: he is not there, and the hint says where to look.
        let out = ana.run(&["team-server", "members", "remove", "acme-apps", "bob@example.com"]);
        assert!(
            stderr(&out).contains("hint: see who is in it: cowork team-server members acme-apps"),
            "{}",
            transcript(&out)
        );
        // Removed, Bob reads nothing of it.
        let out = bob.run(&["team-server", "members", "acme-apps", "--json"]);
        assert_eq!(out.status.code(), Some(3), "{}", transcript(&out));
        // The daemon's next poll drops it here.
        assert_eq!(polled(&http)["teamServers"], json!([]), "{backend:?}");
        let kept: Value = serde_json::from_str(
            &std::fs::read_to_string(bob.home.path().join("team-servers.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(kept["teamServers"], json!([]));
        assert!(!stdout(&bob.run(&["status"])).contains("acme-apps"));
        drop(daemon);
        drop(hub);
    }
}

#[test]
fn org_groups_are_listed_created_set_and_deleted_and_a_concurrent_save_is_reapplied_once() {
    for backend in Backend::BOTH {
        let hub = Hub::start(backend);
        for email in ["ana@example.com", "bob@example.com", "cy@example.com", "di@example.com"] {
            hub.account(email);
        }
        let owner = hub.client("ana@example.com");
        hub.block_on(owner.create_org(&NewOrg { name: "Acme".into(), slug: None })).unwrap();
        for email in ["bob@example.com", "cy@example.com", "di@example.com"] {
            hub.block_on(
                owner.add_org_member(
                    "acme",
                    &OrgMemberAdd { email: email.into(), role: Role::Member },
                ),
            )
            .unwrap();
        }
        let ana = Env::new(runtimes()[0]);
        ana.signed_in(&hub, "ana@example.com");
        let me = ana.json(&["org"]);
        assert_eq!(
            (&me["organization"]["slug"], &me["manages"][0]["slug"]),
            (&json!("acme"), &json!("acme")),
            "{me}"
        );
        assert_eq!(ana.json(&["status"])["account"]["organization"]["slug"], "acme");

        let out = ana.run(&["org", "group", "create", "sales", "--members", "bob@example.com"]);
        assert_eq!(
            stdout(&out),
            "Created the group sales in acme (1 member).\n",
            "{}",
            transcript(&out)
        );
        // Someone outside the organization is named, and nothing is made.
        let out = ana.run(&[
            "org",
            "group",
            "create",
            "ops",
            "--members",
            "nobody@example.com",
            "--json",
        ]);
        assert_eq!(error_name(&out), "NotFound", "{}", transcript(&out));
        assert!(
            stderr(&out)
                .contains("failed to find nobody@example.com among the organization's members"),
            "{}",
            transcript(&out)
        );

        // A save lands between the CLI's read and its write: the hub answers 412, the CLI reads
        // again and applies its change to the new state, so neither change is lost.
        let proxy = Proxy::start(&hub, "ana@example.com");
        let through = Env::new(runtimes()[0]);
        through.signed_in_at(proxy.url(), "ana@example.com");
        let out = through.run(&[
            "org",
            "group",
            "set",
            "sales",
            "--add-members",
            "cy@example.com",
            "--remove-members",
            "bob@example.com",
        ]);
        assert!(out.status.success(), "{backend:?}: {}", transcript(&out));
        assert_eq!(proxy.raced(), 1, "the concurrent save happened");
        let sales = hub.block_on(owner.group("acme", "sales")).unwrap();
        let mut members = sales.members.clone();
        members.sort();
        assert_eq!(
            members,
            ["cy@example.com", "di@example.com"],
            "{backend:?}: di (the other save) and cy (ours) are in, bob is out"
        );

        let groups = ana.json(&["org", "groups"]);
        assert_eq!(groups["groups"][0]["name"], "sales");
        let refused = ana.run(&["org", "group", "delete", "sales"]);
        assert_eq!(refused.status.code(), Some(2));
        assert!(ana.run(&["org", "group", "delete", "sales", "--yes"]).status.success());
        assert_eq!(ana.json(&["org", "groups"])["groups"], json!([]));
        // A group that is not there: its own hint, not one about team servers.
        let out = ana.run(&["org", "group", "delete", "sales", "--yes", "--json"]);
        assert_eq!(error_name(&out), "NotFound", "{}", transcript(&out));
        assert!(
            stderr(&out).contains("list them with: cowork org groups --org acme")
                && !stderr(&out).contains("team-server"),
            "{}",
            transcript(&out)
        );

        // A member of the organization manages none of it.
        let bob = Env::new(runtimes()[0]);
        bob.signed_in(&hub, "bob@example.com");
        let out = bob.run(&["org", "groups", "--json"]);
        assert_eq!(error_name(&out), "NotAdmin", "{}", transcript(&out));
    }
}

/// A hub in front of the hub that, on the first group save it passes on, first saves the group
/// itself (adding di@example.com) — a concurrent save between the CLI's read and its write.
struct Proxy {
    url: String,
    raced: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl Proxy {
    fn start(hub: &Hub, admin: &str) -> Proxy {
        use std::sync::atomic::Ordering;
        let upstream = hub.url().to_string();
        let racer = hub.client(admin);
        let raced = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counter = raced.clone();
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let http =
            reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
        let app = axum::Router::new().fallback(move |request: axum::extract::Request| {
            let (upstream, http, racer, counter) =
                (upstream.clone(), http.clone(), racer.clone(), counter.clone());
            async move {
                let (parts, body) = request.into_parts();
                let body = axum::body::to_bytes(body, 1 << 20).await.unwrap();
                if parts.method == axum::http::Method::PUT
                    && parts.uri.path().contains("/groups/")
                    && counter.fetch_add(1, Ordering::SeqCst) == 0
                {
                    let group = racer.group("acme", "sales").await.unwrap();
                    let mut members = group.members.clone();
                    members.push("di@example.com".into());
                    racer
                        .set_group(
                            "acme",
                            "sales",
                            &cowork_wire::hub::GroupSet { members },
                            &group.etag,
                        )
                        .await
                        .unwrap();
                }
                let mut forward = http
                    .request(parts.method.clone(), format!("{upstream}{}", parts.uri))
                    .body(body.to_vec());
                for (name, value) in &parts.headers {
                    if name != axum::http::header::HOST {
                        forward = forward.header(name, value);
                    }
                }
                let answer = forward.send().await.unwrap();
                let mut response =
                    axum::response::Response::builder().status(answer.status().as_u16());
                for (name, value) in answer.headers() {
                    response = response.header(name, value);
                }
                response.body(axum::body::Body::from(answer.bytes().await.unwrap())).unwrap()
            }
        });
        hub.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        });
        Proxy { url, raced }
    }

    fn url(&self) -> &str {
        &self.url
    }

    /// How many saves it raced.
    fn raced(&self) -> usize {
        self.raced.load(std::sync::atomic::Ordering::SeqCst).min(1)
    }
}

impl Env {
    /// Signs in through `url` (a proxy of the hub).
    fn signed_in_at(&self, url: &str, email: &str) {
        let out = self.login_with(url, email, PASSWORD);
        assert!(out.status.success(), "{}", transcript(&out));
    }
}

/// An app "installed from" team server `slug`: its install receipt names the store (written here,
/// as issue 42's install will), and a routine that fails after logging a credential.
fn installed_app(env: &Env, slug: &str) {
    env.app(
        "reports",
        r#"{ "name": "reports", "version": "1.2.0", "routines": { "reports-fail": "fail.ts", "reports-ok": "ok.ts" } }"#,
        &[
            ("fail.ts", "export default async (args, ctx) => { ctx.log('calling with token=abc123secret'); ctx.log('Authorization: Bearer sk-live-0123456789abcdef'); throw ctx.error('Upstream', 'the API said no (key ghp_0123456789abcdefABCDEF0123456789abcd)'); };"),
            ("ok.ts", "export default async () => ({ fine: true });"),
        ],
    );
    let root = cowork_core::paths::Root::new(env.home.path());
    let receipt = cowork_account::reports::receipt_path(&root, &env.ws_path(), "reports");
    std::fs::create_dir_all(receipt.parent().unwrap()).unwrap();
    std::fs::write(&receipt, format!(r#"{{"store": "{slug}", "version": "1.2.0"}}"#)).unwrap();
}

#[test]
fn runs_of_an_installed_app_are_reported_to_its_team_server_without_input_or_result() {
    for backend in Backend::BOTH {
        let Two { hub, ana, bob } = with_bob(backend);
        installed_app(&bob, "acme-apps");
        assert_eq!(bob.fails("reports-fail", json!({"who": "private-input-value"})), "Upstream");
        bob.ok("reports-ok", json!({}));
        // A local app (no receipt) is never reported.
        bob.app(
            "mine",
            r#"{ "name": "mine", "version": "1.0.0", "routines": { "mine-ok": "ok.ts" } }"#,
            &[("ok.ts", "export default async () => 1;")],
        );
        bob.ok("mine-ok", json!({}));

        let page = ana.json(&["routine", "runs", "--team-server", "acme-apps"]);
        let runs = page["runs"].as_array().unwrap();
        assert_eq!(runs.len(), 2, "{backend:?}: {page}");
        let failed = runs.iter().find(|r| r["status"] == "error").unwrap();
        assert_eq!(
            (&failed["app"], &failed["routine"], &failed["user"]),
            (&json!("reports"), &json!("reports-fail"), &json!("bob@example.com"))
        );
        assert_eq!(failed["appVersion"], "1.2.0");
        assert_eq!(
            failed["error"],
            json!({"name": "Upstream", "message": "the API said no (key [redacted])"})
        );
        let text = failed.to_string();
        assert!(!text.contains("private-input-value"), "never the input: {text}");
        assert!(
            !text.contains("abc123secret")
                && !text.contains("sk-live-0123456789abcdef")
                && !text.contains("ghp_"),
            "credentials cut: {text}"
        );
        assert!(failed["logTail"].as_str().unwrap().contains("token=[redacted]"), "{text}");
        let ok = runs.iter().find(|r| r["status"] == "ok").unwrap();
        assert!(
            ok.get("logTail").is_none() && !ok.to_string().contains("fine"),
            "never the result, no lines of a run that worked: {ok}"
        );

        let filtered = ana.json(&[
            "routine",
            "runs",
            "--team-server",
            "acme-apps",
            "--status",
            "error",
            "--app",
            "reports",
        ]);
        assert_eq!(filtered["runs"].as_array().unwrap().len(), 1);
        let device = failed["device"].as_str().unwrap().to_string();
        let by_device = ana.json(&[
            "routine",
            "runs",
            "--team-server",
            "acme-apps",
            "--device",
            &device,
            "--limit",
            "1",
        ]);
        assert_eq!(by_device["runs"].as_array().unwrap().len(), 1);
        let next = by_device["next"].as_str().expect("a next page").to_string();
        let second =
            ana.json(&["routine", "runs", "--team-server", "acme-apps", "--before", &next]);
        assert_eq!(second["runs"].as_array().unwrap().len(), 1, "{backend:?}: the page after");
        if backend == Backend::Sqlite {
            let table =
                ana.run(&["routine", "runs", "--team-server", "acme-apps", "--status", "error"]);
            let mut settings = settings(&hub);
            settings.add_filter(&regex_escape(&device), "[HOST]");
            settings.add_filter(r"\b[0-9a-f]{8}\b", "[RUN]");
            settings.add_filter(r"\d+ ms", "[N] ms");
            settings.add_filter(r" {2,}", "  ");
            settings
                .bind(|| insta::assert_snapshot!("routine_runs_team_server", transcript(&table)));
        }
    }
}

#[test]
fn a_routine_runs_for_the_signed_in_account_and_gets_an_id_token_the_hub_signed() {
    let hub = Hub::start(Backend::Sqlite);
    hub.account("ana@example.com");
    let owner = hub.client("ana@example.com");
    hub.block_on(owner.create_org(&NewOrg { name: "Acme".into(), slug: None })).unwrap();
    for runtime in runtimes() {
        let env = Env::new(runtime);
        env.app("who", r#"{ "name": "who", "version": "1.0.0", "routines": { "who-am-i": "who.ts" } }"#, &[("who.ts", "export default async (args, ctx) => { const token = await ctx.auth.getIdToken(); ctx.log('token ' + token); return { identity: ctx.identity, state: await ctx.auth.getState(), token, frozen: Object.isFrozen(ctx.identity) }; };")]);
        let nobody = env.ok("who-am-i", json!({}));
        assert_eq!(
            nobody,
            json!({"identity": {"user": null, "organization": null}, "state": {"authenticated": false, "user": null}, "token": null, "frozen": true}),
            "{runtime}"
        );

        env.signed_in(&hub, "ana@example.com");
        let me = env.ok("who-am-i", json!({}));
        let uid = me["identity"]["user"]["uid"].as_str().unwrap().to_string();
        assert_eq!(
            me["identity"]["user"],
            json!({"uid": uid, "email": "ana@example.com"}),
            "{runtime}: {me}"
        );
        assert_eq!(me["identity"]["organization"]["slug"], "acme");
        assert_eq!(
            me["state"],
            json!({"authenticated": true, "user": {"uid": uid, "email": "ana@example.com", "displayName": "ana"}})
        );
        let token = me["token"].as_str().unwrap();
        let claims = verify(&hub, token);
        assert_eq!(
            (&claims["sub"], &claims["email"]),
            (&json!(uid), &json!("ana@example.com")),
            "{claims}"
        );

        // The audit line names who and which organization; the token never shows in its log.
        let line: Value = serde_json::from_str(env.audit_lines().last().unwrap()).unwrap();
        assert_eq!(line["context"]["userId"], uid.as_str());
        assert_eq!(line["context"]["organizationId"], me["identity"]["organization"]["id"]);
        assert!(
            !env.audit_lines().join("\n").contains(token),
            "the ID token is masked in the run's log"
        );

        // Through the daemon too, and a widget's cowork.identity.currentUser().
        let daemon = env.daemon(&[]);
        let through = env.ok("who-am-i", json!({}));
        assert_eq!(through["identity"]["user"]["email"], "ana@example.com");
        let http = Http { port: daemon.port };
        let (_, account) = http.json("GET", "/api/account", &env.owner_token(), None);
        assert_eq!(account["user"]["email"], "ana@example.com");
        drop(daemon);
    }
}

/// Checks `token`'s EdDSA signature against the hub's JWKS; its claims.
fn verify(hub: &Hub, token: &str) -> Value {
    use base64::Engine;
    let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let parts: Vec<&str> = token.split('.').collect();
    assert_eq!(parts.len(), 3, "a JWT");
    let header: Value = serde_json::from_slice(&b64.decode(parts[0]).unwrap()).unwrap();
    assert_eq!(header["alg"], "EdDSA");
    let jwks = hub.block_on(hub.hub.client().jwks()).unwrap();
    let key =
        jwks.keys.iter().find(|k| header["kid"] == k.kid.as_str()).expect("its key in the JWKS");
    let public = b64.decode(&key.x).unwrap();
    let signature = b64.decode(parts[2]).unwrap();
    ring::signature::UnparsedPublicKey::new(&ring::signature::ED25519, public)
        .verify(format!("{}.{}", parts[0], parts[1]).as_bytes(), &signature)
        .expect("the hub's signature holds");
    serde_json::from_slice(&b64.decode(parts[1]).unwrap()).unwrap()
}
