/**
 * The SDK types Cowork writes into every workspace (crates/cowork-engine/src/cowork.d.ts) held
 * against the SDK the frame really installs (`createCowork`): `tsc --noEmit`, the first step of
 * `npm test`, fails on a member one side has and the other lacks — naming it — and on the
 * shapes that drifted before (a notification's `at`).
 */

/// <reference path="../../crates/cowork-engine/src/cowork.d.ts" />
import type { NotificationEvent } from "@/frame/protocol"
import type { Cowork } from "@/frame/sdk"

/** Every member's path (`routines.run`, `statusBar.get`, `openedFile` …): objects are walked, values are leaves. */
type Members<T, Prefix extends string = ""> = {
  [K in keyof T & string]: T[K] extends (...args: never[]) => unknown
    ? `${Prefix}${K}`
    : T[K] extends object
      ? Members<T[K], `${Prefix}${K}.`>
      : `${Prefix}${K}`
}[keyof T & string]

type Nothing<T extends never> = T
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false

/** Members the runtime has and the types do not declare. */
export type Untyped = Nothing<Exclude<Members<Cowork>, Members<CoworkSDK>>>
/** Members the types declare and the runtime does not have. */
export type Unimplemented = Nothing<Exclude<Members<CoworkSDK>, Members<Cowork>>>

/** `onNotification` hands over `at` in milliseconds, as the bell keeps it. */
export const notificationAt: Same<CoworkNotification["at"], NotificationEvent["at"]> = true
