//! `cowork onboarding [status|reset [step…]]`: the first-run steps of a local install, in the
//! terminal — start at login, and the routine runtime. A step is done once answered (the answers
//! are kept in `<root>/onboarding.json`) or when the machine already is as it asks. Signing in to
//! a Cowork account is not in this version, so it is no step here.

use crate::cli::OnboardingCommand;
use crate::exit::{CommandResult, Exit, Failure};
use cowork_core::autostart::Autostart;
use cowork_core::paths::Root;
use std::collections::BTreeMap;
use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;

/// The steps, in the order they are asked.
const STEPS: [(&str, &str); 2] = [
    ("autostart", "Start Cowork Studio when you log in?"),
    ("runtime", "Install Bun, the runtime routines run on (from the npm registry)?"),
];

pub async fn run(command: Option<OnboardingCommand>) -> CommandResult {
    let root = Root::from_env();
    let mut answers = Answers::load(&root)?;
    match command {
        Some(OnboardingCommand::Status) => {
            for (step, question) in STEPS {
                outln!("{:<8} {step:<10} {question}", answers.state(step));
            }
            Ok(Exit::Ok)
        }
        Some(OnboardingCommand::Reset { steps }) => {
            if let Some(unknown) = steps.iter().find(|s| !STEPS.iter().any(|(step, _)| step == s)) {
                return Err(Failure::new(
                    Exit::Usage,
                    format!("there is no onboarding step {unknown:?}"),
                )
                .hint("the steps are autostart and runtime"));
            }
            let all = steps.is_empty();
            answers.given.retain(|step, _| !all && !steps.contains(step));
            answers.save()?;
            outln!(
                "{} asked again by `cowork onboarding`",
                if all { "every step is".to_string() } else { steps.join(", ") + " will be" }
            );
            Ok(Exit::Ok)
        }
        None => ask_pending(&mut answers).await,
    }
}

/// Asks each pending step in a terminal; elsewhere lists them, since nobody can answer.
async fn ask_pending(answers: &mut Answers) -> CommandResult {
    let pending: Vec<_> =
        STEPS.into_iter().filter(|(step, _)| answers.state(step) == "pending").collect();
    if pending.is_empty() {
        outln!("onboarding: every step is done (`cowork onboarding reset` asks again)");
        return Ok(Exit::Ok);
    }
    if !std::io::stdin().is_terminal() {
        for (step, question) in &pending {
            outln!("pending  {step:<10} {question}");
        }
        outln!("hint: answer them in a terminal with `cowork onboarding`, or `cowork setup` does every step");
        return Ok(Exit::Ok);
    }
    for (step, question) in pending {
        print!("{question} [Y/n] ");
        let _ = std::io::stdout().flush();
        let mut line = String::new();
        std::io::stdin()
            .lock()
            .read_line(&mut line)
            .map_err(|e| Failure::new(Exit::Failed, format!("failed to read the answer: {e}")))?;
        let yes = !matches!(line.trim().to_lowercase().as_str(), "n" | "no");
        if yes {
            match step {
                "autostart" => super::setup::enable_autostart()?,
                _ => super::runtime::ensure(false).await?,
            }
        }
        answers.given.insert(step.to_string(), yes);
        answers.save()?;
    }
    Ok(Exit::Ok)
}

/// The answers given so far, by step.
struct Answers {
    file: PathBuf,
    given: BTreeMap<String, bool>,
}

impl Answers {
    fn load(root: &Root) -> Result<Self, Failure> {
        let file = root.dir().join("onboarding.json");
        let given = match std::fs::read_to_string(&file) {
            Ok(text) => serde_json::from_str(&text).map_err(|e| {
                Failure::new(Exit::Failed, format!("failed to read {}: {e}", file.display()))
                    .hint("`cowork onboarding reset` starts the answers afresh")
            })?,
            Err(_) => BTreeMap::new(),
        };
        Ok(Answers { file, given })
    }

    fn save(&self) -> Result<(), Failure> {
        let text = serde_json::to_string_pretty(&self.given)
            .expect("a map of strings to booleans serializes");
        cowork_core::fs_atomic::write(&self.file, text.as_bytes(), false).map_err(|e| {
            Failure::new(Exit::Failed, format!("failed to write {}: {e}", self.file.display()))
        })
    }

    /// `yes` or `no` when answered, `done` when the machine already is so, else `pending`.
    fn state(&self, step: &str) -> &'static str {
        match self.given.get(step) {
            Some(true) => "yes",
            Some(false) => "no",
            None if already_done(step) => "done",
            None => "pending",
        }
    }
}

fn already_done(step: &str) -> bool {
    match step {
        "autostart" => Autostart::from_env().is_enabled(),
        _ => cowork_engine::runtime::find()
            .is_ok_and(|r| r.kind == cowork_engine::runtime::RuntimeKind::Bun),
    }
}
