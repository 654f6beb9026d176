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
seq: number, } & ({ "type": "user", text: string, context: Array<ContextItem>, } | { "type": "session", session: string, model: string | null, } | { "type": "text", text: string, } | { "type": "toolCall", id: string, name: string, input: unknown, } | { "type": "toolResult", id: string, output: string, isError: boolean, } | { "type": "permission", id: string, tool: string, input: unknown, } | { "type": "question", id: string, questions: Array<Question>, } | { "type": "answered", id: string, answer: string, } | { "type": "turnEnd", result: string | null, isError: boolean, interrupted: boolean, } | { "type": "error", name: string, message: string, hint: string | null, });

export type ChatEventKind = { "type": "user", text: string, context: Array<ContextItem>, } | { "type": "session", session: string, model: string | null, } | { "type": "text", text: string, } | { "type": "toolCall", id: string, name: string, input: unknown, } | { "type": "toolResult", id: string, output: string, isError: boolean, } | { "type": "permission", id: string, tool: string, input: unknown, } | { "type": "question", id: string, questions: Array<Question>, } | { "type": "answered", id: string, answer: string, } | { "type": "turnEnd", result: string | null, isError: boolean, interrupted: boolean, } | { "type": "error", name: string, message: string, hint: string | null, };

export type Question = { question: string, header: string | null, options: Array<QuestionOption>, multiSelect: boolean, };

export type QuestionOption = { label: string, description: string | null, };

export type ContextItem = { 
/**
 * `context` or `selection`.
 */
kind: string, 
/**
 * The app that fed it.
 */
app: string | null, text: string, };

export type ConversationSummary = { id: string, 
/**
 * The first thing the person said (shortened).
 */
title: string, 
/**
 * RFC 3339.
 */
created: string, model: string | null, effort: string | null, 
/**
 * The CLI session to resume, once it started.
 */
session: string | null, 
/**
 * A turn is running now.
 */
running: boolean, };

export type Conversations = { conversations: Array<ConversationSummary>, };

export type Transcript = { events: Array<ChatEvent>, };

export type SendBody = { workspace: string, conversation: string | null, text: string, context: Array<ContextItem>, 
/**
 * `--model` (e.g. `sonnet`, `opus`); none: the CLI's own default.
 */
model: string | null, 
/**
 * `--effort`: `low`, `medium`, `high`; none: the CLI's own default.
 */
effort: string | null, };

export type Sent = { conversation: string, };

export type Decision = "allow" | "always" | "deny";

export type AnswerBody = { workspace: string, conversation: string, 
/**
 * The prompt's or question's `id`.
 */
id: string, decision: Decision | null, answers: { [key in string]: string } | null, };

export type ConversationBody = { workspace: string, conversation: string, };
