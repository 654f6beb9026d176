/**
 * Manage Workspace › Components › Courses & Lessons (page 11): the workspace's own courses as files
 * (`.cowork/courses/<name>/course.md`), each with its title, level and lessons in order, and every
 * problem `publish --type course` would refuse, named with its file; then the lessons of
 * `.cowork/lessons/` no course lists. Read from `/api/store/workspace-courses`, again whenever the
 * registry changes (a saved file reloads it).
 */
import { useEffect, useState } from "react"

import { Badge } from "@/components/ui/badge"
import * as api from "./api"
import { Codicon } from "./codicon"
import { getState, useWorkbench } from "./store"

export function WorkspaceCourses() {
  const info = useWorkbench((s) => s.info)
  const [listed, setListed] = useState<api.WorkspaceCourses | null>(null)
  const [failed, setFailed] = useState<string | null>(null)
  // biome-ignore lint/correctness/useExhaustiveDependencies: `info` is the registry's version: a new one means read again
  useEffect(() => {
    let live = true
    api.workspaceCourses(getState().workspace).then(
      (answer) => {
        if (!live) return
        setListed(answer)
        setFailed(null)
      },
      (error) => live && setFailed(error instanceof Error ? error.message : String(error)),
    )
    return () => {
      live = false
    }
  }, [info])
  return (
    <section className="grid gap-3" data-testid="workspace-courses">
      <h2 className="text-sm font-semibold">Courses &amp; Lessons</h2>
      {failed && <p className="text-sm text-destructive">{failed}</p>}
      {listed && listed.courses.length === 0 && listed.lessons.length === 0 && (
        <p className="text-sm text-muted-foreground">
          No courses in .cowork/courses/ yet: a course is a course.md that lists its lessons.
        </p>
      )}
      {listed?.courses.map((course) => (
        <CourseCard key={course.name} course={course} />
      ))}
      {listed && listed.lessons.length > 0 && (
        <div className="grid gap-1 rounded-lg border bg-card p-4" data-loose-lessons>
          <h3 className="text-sm font-medium">Lessons no course lists</h3>
          <LessonList lessons={listed.lessons} ordered={false} />
        </div>
      )}
    </section>
  )
}

function CourseCard({ course }: { course: api.WorkspaceCourse }) {
  return (
    <article className="grid gap-2 rounded-lg border bg-card p-4" data-course={course.name}>
      <div className="flex items-start gap-2">
        <Codicon name="mortar-board" />
        <div className="grid min-w-0 flex-1 gap-0.5">
          <h3 className="font-medium">{course.title || course.name}</h3>
          <p className="font-mono text-xs break-all text-muted-foreground">{course.path}</p>
        </div>
        {course.level && <Badge variant="secondary">{course.level}</Badge>}
        {course.problems.length === 0 ? (
          <Badge variant="outline" data-course-ok>
            ready to publish
          </Badge>
        ) : (
          <Badge variant="destructive" data-course-problems>
            {course.problems.length} problem{course.problems.length === 1 ? "" : "s"}
          </Badge>
        )}
      </div>
      <LessonList lessons={course.lessons} ordered />
      {course.problems.length > 0 && (
        <ul className="grid gap-2 text-sm">
          {course.problems.map((problem, index) => (
            <li
              // biome-ignore lint/suspicious/noArrayIndexKey: problems have no identity of their own; the list is replaced whole
              key={index}
              data-course-problem
              className="grid gap-0.5"
            >
              <span className="font-mono text-xs break-all opacity-75">{problem.file}</span>
              <span className="break-words text-destructive">{problem.message}</span>
            </li>
          ))}
        </ul>
      )}
    </article>
  )
}

function LessonList({ lessons, ordered }: { lessons: api.WorkspaceLesson[]; ordered: boolean }) {
  return (
    <ol className="grid gap-1 text-sm">
      {lessons.map((lesson, index) => (
        <li key={lesson.id} className="flex flex-wrap items-baseline gap-2" data-workspace-lesson>
          <span>
            {ordered ? `${index + 1}. ` : ""}
            {lesson.title || lesson.id}
          </span>
          <span className="font-mono text-xs text-muted-foreground">{lesson.path}</span>
          {lesson.minutes !== null && (
            <span className="text-xs text-muted-foreground">{lesson.minutes} min</span>
          )}
          {lesson.video && <Codicon name="device-camera-video" size={12} />}
        </li>
      ))}
    </ol>
  )
}
