/**
 * The Academy (page 11): the courses this account subscribed to, each course's lessons in order,
 * the lesson's video on top and its text below, and progress kept by the hub (a lesson marked done
 * stays done on every machine). The course is read from its latest published version, verified as
 * an install is (`/api/store/course`).
 */
import { useEffect, useState } from "react"

import { Badge } from "@/components/ui/badge"
import { Button } from "@/components/ui/button"
import { cn } from "@/lib/utils"
import * as api from "./api"
import { Codicon } from "./codicon"
import { openExternal } from "./external"
import { report } from "./report"
import { getState, useWorkbench } from "./store"

export function Academy() {
  // Courses are the account's: signed out, there are none to read (the hub would refuse).
  const signedOut = useWorkbench((s) => s.account !== null && s.account.user === null)
  const [subscriptions, setSubscriptions] = useState<api.Subscription[] | null>(null)
  const [chosen, setChosen] = useState<api.Subscription | null>(null)
  useEffect(() => {
    if (signedOut) return
    api.courses().then(
      (answer) => {
        setSubscriptions(answer.subscriptions)
        setChosen((now) => now ?? answer.subscriptions[0] ?? null)
      },
      (error) => {
        setSubscriptions([])
        report("Cowork could not read your courses", error)
      },
    )
  }, [signedOut])
  if (signedOut)
    return (
      <p className="text-sm text-muted-foreground" data-testid="academy-signed-out">
        Sign in to Cowork (Sign in, in the title bar) to see the courses you subscribed to.
      </p>
    )
  if (subscriptions === null) return null
  if (subscriptions.length === 0)
    return (
      <p className="text-sm text-muted-foreground" data-testid="academy-none">
        No courses yet: subscribe to one on its team server's page, and it appears here.
      </p>
    )
  return (
    <div className="grid gap-3" data-testid="academy">
      <div className="flex flex-wrap gap-2">
        {subscriptions.map((each) => (
          <Button
            key={`${each.teamServer}/${each.course}`}
            size="sm"
            variant={chosen === each ? "default" : "outline"}
            onClick={() => setChosen(each)}
          >
            {each.title ?? each.course}
          </Button>
        ))}
      </div>
      {chosen && <CourseView key={`${chosen.teamServer}/${chosen.course}`} subscription={chosen} />}
    </div>
  )
}

function CourseView({ subscription }: { subscription: api.Subscription }) {
  const { teamServer, course } = subscription
  const [view, setView] = useState<api.CourseView | null>(null)
  const [done, setDone] = useState<Set<string>>(new Set())
  const [shown, setShown] = useState(0)
  useEffect(() => {
    api
      .course(getState().workspace, teamServer, course)
      .then(setView, (error) => report(`Cowork could not open the course ${course}`, error))
    api.progress(teamServer, course).then(
      (answer) => setDone(new Set(answer.lessons.map((each) => each.lesson))),
      (error) => report("Cowork could not read your progress", error),
    )
  }, [teamServer, course])
  if (!view) return null
  const lesson = view.lessons[shown]
  const mark = async (id: string, isDone: boolean) => {
    try {
      const answer = await api.setLessonDone(teamServer, course, id, isDone)
      setDone(new Set(answer.lessons.map((each) => each.lesson)))
    } catch (error) {
      report("Cowork could not keep your progress", error)
    }
  }
  return (
    <div className="grid grid-cols-[14rem_1fr] gap-4" data-course={course}>
      <nav className="grid content-start gap-1">
        <h2 className="text-sm font-semibold">{view.title}</h2>
        <p className="text-xs text-muted-foreground">
          {done.size} of {view.lessons.length} done{view.level ? ` · ${view.level}` : ""}
        </p>
        <ol className="mt-2 grid gap-1">
          {view.lessons.map((each, index) => (
            <li key={each.id}>
              <button
                type="button"
                data-lesson={each.id}
                data-done={done.has(each.id) || undefined}
                className={cn(
                  "flex w-full items-center gap-2 rounded px-2 py-1 text-left text-sm hover:bg-accent",
                  index === shown && "bg-accent font-medium",
                )}
                onClick={() => setShown(index)}
              >
                <Codicon
                  name={done.has(each.id) ? "pass-filled" : "circle-large"}
                  className={done.has(each.id) ? "text-emerald-600" : "text-muted-foreground"}
                />
                <span className="min-w-0 flex-1 truncate">
                  {index + 1}. {each.title}
                </span>
              </button>
            </li>
          ))}
        </ol>
      </nav>
      {lesson && (
        <article className="grid content-start gap-3" data-lesson-shown={lesson.id}>
          {lesson.video && (
            <button
              type="button"
              data-video
              className="flex aspect-video w-full items-center justify-center gap-2 rounded-lg border bg-muted text-sm"
              onClick={() => void openExternal(lesson.video!)}
            >
              <Codicon name="play-circle" size={28} />
              Watch the video · {new URL(lesson.video).host}
            </button>
          )}
          <div className="flex flex-wrap items-center gap-2">
            <h3 className="text-lg font-semibold">{lesson.title}</h3>
            {lesson.minutes !== null && <Badge variant="secondary">{lesson.minutes} min</Badge>}
          </div>
          <p className="text-sm whitespace-pre-wrap">{lesson.body}</p>
          <div className="flex gap-2">
            <Button
              size="sm"
              variant={done.has(lesson.id) ? "outline" : "default"}
              onClick={() => void mark(lesson.id, !done.has(lesson.id))}
            >
              {done.has(lesson.id) ? "Mark as not done" : "Mark as done"}
            </Button>
            {shown + 1 < view.lessons.length && (
              <Button size="sm" variant="outline" onClick={() => setShown(shown + 1)}>
                Next lesson
              </Button>
            )}
          </div>
        </article>
      )}
    </div>
  )
}
