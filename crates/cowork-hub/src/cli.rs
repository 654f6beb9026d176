//! The hub's commands, as clap types both front doors share: the `cowork-hub` binary and
//! `cowork hub …` in the CLI parse the same [`HubCommand`] and call [`run`].

use crate::config::{default_data_dir, BlobsConfig, Config};
use crate::error::HubErr;
use clap::{Args, Subcommand};
use std::io::Read;
use std::net::SocketAddr;
use std::path::PathBuf;

/// The default address: loopback, beside the daemon's 47913.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:47920";

/// A hub command.
#[derive(Subcommand, Debug, Clone)]
pub enum HubCommand {
    /// Serve the team hub: accounts and sign-in, organizations, team servers. One machine: SQLite
    /// and a blob folder under --data. Replicas: --database postgres://… --blobs s3://…
    Serve(ServeArgs),
    /// Copy an embedded hub (its --data folder) into Postgres and an object store. Idempotent: run
    /// it again to copy what was added since; rows already there are kept.
    Migrate(MigrateArgs),
    /// Accounts, straight on the hub's database (no running hub needed).
    #[command(subcommand)]
    User(UserCommand),
}

/// Where the hub keeps its data.
#[derive(Args, Debug, Clone)]
pub struct StorageArgs {
    /// The embedded hub's folder: hub.db (SQLite) and blobs/ [default: $COWORK_HUB_DATA, else
    /// <Cowork root>/hub]
    #[arg(long, value_name = "DIR")]
    pub data: Option<PathBuf>,
    /// A Postgres database instead of the embedded SQLite (postgres://user@host:port/db). Keep a
    /// password out of argv: PGPASSWORD, ~/.pgpass, or the whole URL in $COWORK_HUB_DATABASE.
    #[arg(long, value_name = "URL", env = "COWORK_HUB_DATABASE", hide_env_values = true)]
    pub database: Option<String>,
    /// Where blobs go: s3://bucket?endpoint=http(s)://host:port[&region=…][&prefix=…] (keys from
    /// AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY or credentials=<file>), or a folder [default:
    /// <data>/blobs]
    #[arg(long, value_name = "URL|DIR", env = "COWORK_HUB_BLOBS")]
    pub blobs: Option<String>,
}

impl StorageArgs {
    /// The embedded hub's `hub.db` these arguments name, when no --database does.
    fn embedded_database(&self) -> Option<PathBuf> {
        let data = self.data.clone().unwrap_or_else(default_data_dir);
        self.database.is_none().then(|| data.join("hub.db"))
    }

    fn database_and_blobs(&self) -> Result<(String, BlobsConfig, Option<PathBuf>), HubErr> {
        let data = self.data.clone().unwrap_or_else(default_data_dir);
        let database = match &self.database {
            Some(url) => url.clone(),
            None => {
                cowork_core::fs_atomic::create_dir(&data, true).map_err(|error| {
                    HubErr::config(
                        format!(
                            "failed to create the hub's data folder {}: {error}",
                            data.display()
                        ),
                        "pass --data with a folder this user may write",
                    )
                })?;
                crate::db::sqlite_url(&data.join("hub.db"))
            }
        };
        let blobs = match &self.blobs {
            Some(url) if url.starts_with("s3://") => BlobsConfig::S3(url.clone()),
            Some(dir) => BlobsConfig::Folder(PathBuf::from(dir)),
            None if self.database.is_some() && self.data.is_none() => {
                return Err(HubErr::config(
                    "failed to start the hub: a Postgres hub needs --blobs",
                    "pass --blobs s3://bucket?endpoint=… (or --data DIR for a blob folder on this machine)",
                ));
            }
            None => BlobsConfig::Folder(data.join("blobs")),
        };
        let data = (self.database.is_none() || self.data.is_some()).then_some(data);
        Ok((database, blobs, data))
    }
}

/// `serve`'s flags.
#[derive(Args, Debug, Clone)]
pub struct ServeArgs {
    /// Where the hub keeps its data.
    #[command(flatten)]
    pub storage: StorageArgs,
    /// The address to listen on; anything but loopback needs --behind-https.
    #[arg(long, value_name = "HOST:PORT", default_value = DEFAULT_LISTEN)]
    pub listen: SocketAddr,
    /// The address people and clients use to reach the hub (its sign-in pages' and ID tokens'
    /// address) [default: http://<listen>]
    #[arg(long, value_name = "URL")]
    pub public_url: Option<String>,
    /// HTTPS is terminated in front of the hub (a reverse proxy): required to listen beyond
    /// loopback; cookies become Secure and the client address comes from X-Forwarded-For.
    #[arg(long)]
    pub behind_https: bool,
    /// Let anyone create a password account (otherwise a hub admin creates them).
    #[arg(long)]
    pub open_signup: bool,
    /// Do not run the periodic jobs (retention, blob GC) in this replica.
    #[arg(long)]
    pub no_jobs: bool,
}

impl ServeArgs {
    /// The configuration these flags describe.
    pub fn config(&self) -> Result<Config, HubErr> {
        let (database, blobs, data) = self.storage.database_and_blobs()?;
        let mut config = Config::embedded(data.clone().unwrap_or_default(), self.listen);
        config.database = database;
        config.blobs = blobs;
        config.data = data;
        config.public_url = self.public_url.clone();
        config.behind_https = self.behind_https;
        config.open_signup = self.open_signup;
        config.jobs = !self.no_jobs;
        Ok(config)
    }
}

/// `migrate`'s flags.
#[derive(Args, Debug, Clone)]
pub struct MigrateArgs {
    /// The embedded hub's folder (its hub.db and blobs/). Stop that hub first.
    #[arg(long, value_name = "DIR")]
    pub from: PathBuf,
    /// The Postgres database to copy into (its schema is created when missing).
    #[arg(long, value_name = "URL")]
    pub to_database: String,
    /// The object store to copy the blobs into (s3://…, keys from the environment).
    #[arg(long, value_name = "URL")]
    pub to_blobs: String,
}

/// `user …`.
#[derive(Subcommand, Debug, Clone)]
pub enum UserCommand {
    /// Create a password account; the password is read from stdin (never from argv).
    Add {
        /// Where the hub keeps its data.
        #[command(flatten)]
        storage: StorageArgs,
        /// Its email address.
        #[arg(long)]
        email: String,
        /// Its display name [default: the email's local part]
        #[arg(long)]
        name: Option<String>,
        /// Make it a hub admin (may create accounts).
        #[arg(long)]
        admin: bool,
        /// Read the password from stdin (required: the password never goes in argv).
        #[arg(long, required = true)]
        password_stdin: bool,
        /// Print the account as one JSON line (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
    },
}

/// Run a hub command to its end.
pub async fn run(command: HubCommand) -> Result<(), HubErr> {
    match command {
        HubCommand::Serve(args) => crate::serve(args.config()?).await,
        HubCommand::Migrate(args) => {
            let report = crate::migrate::run(&args.from, &args.to_database, &args.to_blobs).await?;
            println!("{report}");
            Ok(())
        }
        HubCommand::User(UserCommand::Add {
            storage,
            email,
            name,
            admin,
            password_stdin: _,
            json,
        }) => {
            let mut password = String::new();
            std::io::stdin().read_to_string(&mut password).map_err(|error| {
                HubErr::config(
                    format!("failed to read the password from stdin: {error}"),
                    "pipe it in: printf %s \"$PW\" | cowork-hub user add …",
                )
            })?;
            let password = password.trim_end_matches(['\r', '\n']).to_string();
            // A --data with a typo would make a second hub and its first admin: say so.
            let new_hub = storage.embedded_database().filter(|db| !db.exists());
            let (database, _, _) = storage.database_and_blobs()?;
            let db = crate::db::Db::open(&database).await?;
            let account = crate::accounts::create(
                &db,
                &cowork_wire::hub::NewAccount {
                    email,
                    password,
                    display_name: name,
                    hub_admin: admin,
                },
            )
            .await?;
            db.close().await;
            if let Some(db) = &new_hub {
                eprintln!(
                    "note: {} held no hub: this made a new one (check --data if you meant another)",
                    db.parent().unwrap_or(db).display()
                );
            }
            if json {
                let line = serde_json::json!({
                    "ok": true,
                    "email": account.user.email,
                    "hubAdmin": account.hub_admin,
                    "newHub": new_hub.is_some(),
                });
                println!("{line}");
            } else {
                println!(
                    "created {}{}",
                    account.user.email,
                    if account.hub_admin { " (hub admin)" } else { "" }
                );
            }
            Ok(())
        }
    }
}
