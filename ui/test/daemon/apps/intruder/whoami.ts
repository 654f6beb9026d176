// intruder-whoami: runs, so the audit log says which app called it.
export default async (args: unknown) => ({ asked: args })
