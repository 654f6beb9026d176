/**
 * The frame's end of the wire: numbered requests that settle when the host answers, and events
 * handed to listeners by name. It knows nothing of `window`: `post` sends, `receive` takes what
 * arrived, so a test can wire two ends together.
 */
import {
  CoworkError,
  PROTOCOL,
  type FrameMessage,
  type HostEvent,
  type HostMessage,
  type Method,
  type Params,
  type Result,
} from "./protocol"
import { report } from "./listeners"

export type EventName = HostEvent["event"]
export type EventOf<E extends EventName> = Extract<HostEvent, { event: E }>

export interface Client {
  request<M extends Method>(method: M, params: Params<M>): Promise<Result<M>>
  /** Calls `listener` for every event named `event`; returns the unsubscribe. */
  on<E extends EventName>(event: E, listener: (event: EventOf<E>) => void): () => void
  /** Hands a message from the host to the waiting request or the event's listeners. */
  receive(message: HostMessage): void
}

export function createClient(post: (message: FrameMessage) => void): Client {
  let nextId = 1
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>()
  const listeners = new Map<EventName, Set<(event: HostEvent) => void>>()

  function request<M extends Method>(method: M, params: Params<M>) {
    const id = nextId++
    return new Promise<Result<M>>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject })
      try {
        post({ cowork: PROTOCOL, id, method, params })
      } catch (error) {
        // A value postMessage cannot clone (a function, a DOM node) fails here, not on the host.
        pending.delete(id)
        reject(error as Error)
      }
    })
  }

  function on<E extends EventName>(event: E, listener: (event: EventOf<E>) => void) {
    const set = listeners.get(event) ?? new Set()
    listeners.set(event, set)
    const entry = listener as (event: HostEvent) => void
    set.add(entry)
    return () => void set.delete(entry)
  }

  function receive(message: HostMessage) {
    if ("event" in message) {
      for (const listener of listeners.get(message.event) ?? []) {
        try {
          listener(message)
        } catch (error) {
          // One failing listener (a widget's callback) must not starve the others.
          report(error)
        }
      }
      return
    }
    const waiter = pending.get(message.id)
    if (!waiter) return
    pending.delete(message.id)
    if ("error" in message) waiter.reject(CoworkError.from(message.error))
    else waiter.resolve(message.result)
  }

  return { request, on, receive }
}
