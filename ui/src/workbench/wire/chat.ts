// Generated from crates/cowork-wire/src/chat.rs: do not edit. Refresh:
// COWORK_WRITE_TS=1 cargo test -p cowork-wire --features typescript --lib chat

export type ChatEvent = { 
/**
 * The conversation's id.
 */
conversation: string, 
/**
 * Its place in the conversation (from 1).
 */
seq: number, } & ({ "type": "user", 
/**
 * What the person said.
 */
text: string, 
/**
 * What the apps fed the Chat for this message.
 */
context: Array<ContextItem>, } | { "type": "session", 
/**
 * The CLI's session id.
 */
session: string, 
/**
 * The model the CLI runs, when it said.
 */
model: string | null, } | { "type": "text", 
/**
 * The text.
 */
text: string, } | { "type": "toolCall", 
/**
 * The call's id, which its `toolResult` (and a `permission`) names.
 */
id: string, 
/**
 * The tool's name.
 */
name: string, 
/**
 * The tool's input, as the agent gave it.
 */
input: unknown, } | { "type": "toolResult", 
/**
 * The `toolCall`'s id.
 */
id: string, 
/**
 * What the tool answered, as text.
 */
output: string, 
/**
 * The tool failed.
 */
isError: boolean, } | { "type": "permission", 
/**
 * The prompt's id, which the answer names.
 */
id: string, 
/**
 * The tool the agent asks to use.
 */
tool: string, 
/**
 * The tool's input, as the agent gave it.
 */
input: unknown, } | { "type": "question", 
/**
 * The question's id, which the answer names.
 */
id: string, 
/**
 * The questions, in order.
 */
questions: Array<Question>, } | { "type": "answered", 
/**
 * The prompt's or question's id.
 */
id: string, 
/**
 * What was answered, in words.
 */
answer: string, } | { "type": "turnEnd", 
/**
 * The agent's final text, when it finished.
 */
result: string | null, 
/**
 * The turn ended in an error.
 */
isError: boolean, 
/**
 * The person interrupted it.
 */
interrupted: boolean, } | { "type": "install", 
/**
 * The CLI (`claude-code`, `codex`).
 */
cli: string, 
/**
 * A line npm printed, when this event carries one.
 */
line: string | null, 
/**
 * How many lines npm printed so far (a progress bar's pulse: npm gives no percent).
 */
lines: number, 
/**
 * The install ended: `ok` or `failed` (none while it runs).
 */
outcome: string | null, } | { "type": "error", 
/**
 * The error's name.
 */
name: string, 
/**
 * What failed.
 */
message: string, 
/**
 * How to fix it, when known.
 */
hint: string | null, });

export type ChatEventKind = { "type": "user", 
/**
 * What the person said.
 */
text: string, 
/**
 * What the apps fed the Chat for this message.
 */
context: Array<ContextItem>, } | { "type": "session", 
/**
 * The CLI's session id.
 */
session: string, 
/**
 * The model the CLI runs, when it said.
 */
model: string | null, } | { "type": "text", 
/**
 * The text.
 */
text: string, } | { "type": "toolCall", 
/**
 * The call's id, which its `toolResult` (and a `permission`) names.
 */
id: string, 
/**
 * The tool's name.
 */
name: string, 
/**
 * The tool's input, as the agent gave it.
 */
input: unknown, } | { "type": "toolResult", 
/**
 * The `toolCall`'s id.
 */
id: string, 
/**
 * What the tool answered, as text.
 */
output: string, 
/**
 * The tool failed.
 */
isError: boolean, } | { "type": "permission", 
/**
 * The prompt's id, which the answer names.
 */
id: string, 
/**
 * The tool the agent asks to use.
 */
tool: string, 
/**
 * The tool's input, as the agent gave it.
 */
input: unknown, } | { "type": "question", 
/**
 * The question's id, which the answer names.
 */
id: string, 
/**
 * The questions, in order.
 */
questions: Array<Question>, } | { "type": "answered", 
/**
 * The prompt's or question's id.
 */
id: string, 
/**
 * What was answered, in words.
 */
answer: string, } | { "type": "turnEnd", 
/**
 * The agent's final text, when it finished.
 */
result: string | null, 
/**
 * The turn ended in an error.
 */
isError: boolean, 
/**
 * The person interrupted it.
 */
interrupted: boolean, } | { "type": "install", 
/**
 * The CLI (`claude-code`, `codex`).
 */
cli: string, 
/**
 * A line npm printed, when this event carries one.
 */
line: string | null, 
/**
 * How many lines npm printed so far (a progress bar's pulse: npm gives no percent).
 */
lines: number, 
/**
 * The install ended: `ok` or `failed` (none while it runs).
 */
outcome: string | null, } | { "type": "error", 
/**
 * The error's name.
 */
name: string, 
/**
 * What failed.
 */
message: string, 
/**
 * How to fix it, when known.
 */
hint: string | null, };

export type Question = { 
/**
 * The question's text.
 */
question: string, 
/**
 * A short label above it.
 */
header: string | null, 
/**
 * The choices; none = free text only.
 */
options: Array<QuestionOption>, 
/**
 * More than one choice may be picked.
 */
multiSelect: boolean, };

export type QuestionOption = { 
/**
 * The choice's text (what the answer carries).
 */
label: string, 
/**
 * What the choice means, in a line.
 */
description: string | null, };

export type ContextItem = { 
/**
 * `context` or `selection`.
 */
kind: string, 
/**
 * The app that fed it.
 */
app: string | null, 
/**
 * The value or the selected text.
 */
text: string, };

export type ConversationSummary = { 
/**
 * The conversation's id.
 */
id: string, 
/**
 * The first thing the person said (shortened).
 */
title: string, 
/**
 * RFC 3339.
 */
created: string, 
/**
 * The model it runs (`--model`); none = the CLI's default.
 */
model: string | null, 
/**
 * The effort it runs at (`--effort`); none = the CLI's default.
 */
effort: string | null, 
/**
 * The CLI session to resume, once it started.
 */
session: string | null, 
/**
 * The agent CLI it runs: `claude-code` or `codex` (a conversation keeps the one it began with).
 */
cli: string, 
/**
 * A turn is running now.
 */
running: boolean, };

export type Conversations = { 
/**
 * The conversations, newest first.
 */
conversations: Array<ConversationSummary>, 
/**
 * The CLI a new conversation of this workspace runs: `claude-code` (the default) or `codex`,
 * as last chosen in it.
 */
cli: string, };

export type Transcript = { 
/**
 * The conversation's events, in order (`seq`).
 */
events: Array<ChatEvent>, };

export type SendBody = { 
/**
 * The workspace folder the agent runs in.
 */
workspace: string, 
/**
 * The conversation to talk in; none = a new one.
 */
conversation: string | null, 
/**
 * What the person says.
 */
text: string, 
/**
 * What the apps fed the Chat, sent with the text.
 */
context: Array<ContextItem>, 
/**
 * `--model` (e.g. `sonnet`, `opus`); none: the CLI's own default.
 */
model: string | null, 
/**
 * `--effort`: `low`, `medium`, `high`; none: the CLI's own default.
 */
effort: string | null, 
/**
 * The agent CLI of a new conversation: `claude-code` or `codex`, remembered as the
 * workspace's choice; none: the workspace's choice (`Conversations::cli`).
 */
cli: string | null, };

export type Sent = { 
/**
 * The conversation the text went to (new or given).
 */
conversation: string, };

export type Decision = "allow" | "always" | "deny";

export type AnswerBody = { 
/**
 * The workspace folder the agent runs in.
 */
workspace: string, 
/**
 * The conversation the prompt or question is in.
 */
conversation: string, 
/**
 * The prompt's or question's `id`.
 */
id: string, 
/**
 * A permission prompt's decision.
 */
decision: Decision | null, 
/**
 * A question's answers: question text → the chosen label(s) or free text.
 */
answers: { [key in string]: string } | null, };

export type ConversationBody = { 
/**
 * The workspace folder the agent runs in.
 */
workspace: string, 
/**
 * The conversation to interrupt.
 */
conversation: string, };

export type InstallBody = { 
/**
 * The workspace whose Chat shows the progress.
 */
workspace: string, 
/**
 * `claude-code` or `codex`.
 */
cli: string, };

export type Installed = { 
/**
 * The CLI's binary, as the Chat will run it.
 */
program: string, 
/**
 * The version installed.
 */
version: string, };
